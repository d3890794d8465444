from __future__ import annotations

from rootward.actions.safe import SafeAction, SafeActionRunner


def test_actions_off_the_allowlist_or_over_quota_are_refused() -> None:
    calls: list[str] = []
    runner = SafeActionRunner(
        {"annotate": lambda a: calls.append(a.name) or "noted"},
        allowlist={"annotate"},
        max_per_investigation=1,
    )
    results = runner.run(
        [SafeAction("annotate"), SafeAction("annotate"), SafeAction("silence_alert"), SafeAction("rm_everything")]
    )
    assert [r.status for r in results] == ["done", "refused", "refused", "refused"]
    assert calls == ["annotate"]
