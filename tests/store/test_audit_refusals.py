from __future__ import annotations

from rootward.store.audit_refusals import OTHER_SOURCES, RefusalThrottle


class Clock:
    def __init__(self) -> None:
        self.t = 1_000.0

    def __call__(self) -> float:
        return self.t


def test_the_first_refusal_per_source_and_window_is_audited_the_rest_counted() -> None:
    clock = Clock()
    throttle = RefusalThrottle(60, now=clock)
    assert throttle.admit("slack.refused", "10.0.0.1", "bad signature")
    assert throttle.admit("slack.refused", "10.0.0.2", "bad signature")  # another source: its own row
    for _ in range(2999):
        clock.t += 0.005
        assert not throttle.admit("slack.refused", "10.0.0.1", "bad signature")
    assert throttle.due() == []  # the window is still open
    clock.t += 60
    [summary] = throttle.due()
    assert summary.kind == "slack.refused" and summary.subject == "10.0.0.1"
    assert summary.data["count"] == 2999 and summary.data["reasons"] == {"bad signature": 2999}
    assert throttle.admit("slack.refused", "10.0.0.1", "bad signature")  # a new window: audited again


def test_a_closed_window_keeps_its_count_until_flushed_when_the_source_comes_back() -> None:
    clock = Clock()
    throttle = RefusalThrottle(60, now=clock)
    throttle.admit("approval.refused", "api:vic", "no such approval request", "a1")
    throttle.admit("approval.refused", "api:vic", "no such approval request", "a2")
    clock.t += 61
    assert throttle.admit("approval.refused", "api:vic", "no such approval request", "a3")
    [summary] = throttle.due()
    assert summary.data["count"] == 1 and summary.data["subjects"] == ["a2"]


def test_sources_beyond_the_limit_share_one_counter() -> None:
    throttle = RefusalThrottle(60, max_sources=2, now=Clock())
    assert throttle.admit("slack.refused", "a", "r") and throttle.admit("slack.refused", "b", "r")
    assert throttle.admit("slack.refused", "c", "r")  # the first of the "*" bucket
    assert not throttle.admit("slack.refused", "d", "r")
    [summary] = throttle.due(everything=True)
    assert summary.subject == OTHER_SOURCES and summary.data["count"] == 1


def test_each_kind_of_reason_gets_its_first_row_but_its_details_do_not_make_new_ones() -> None:
    clock = Clock()
    throttle = RefusalThrottle(60, now=clock)
    assert throttle.admit("slack.refused", "10.0.0.1", "bad signature")
    assert throttle.admit("slack.refused", "10.0.0.1", "stale request: signed 312 s ago (limit 300 s)")
    assert not throttle.admit("slack.refused", "10.0.0.1", "stale request: signed 313 s ago (limit 300 s)")
    assert throttle.admit("slack.refused", "10.0.0.1", "unknown action 'a'")
    assert not throttle.admit("slack.refused", "10.0.0.1", "unknown action 'b'")
    summaries = throttle.due(everything=True)
    assert sorted(e.data["count"] for e in summaries) == [1, 1]
