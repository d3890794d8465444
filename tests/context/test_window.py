"""The incident window and its data-derived onset."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rootward.context.window import derive_onset, fired_at_of, incident_window, with_onset

FIRED = datetime(2026, 3, 14, 14, 32, tzinfo=UTC)


def test_default_window_is_five_minutes_before_to_ten_after_with_baseline_before() -> None:
    w = incident_window(FIRED)
    assert w.start == FIRED - timedelta(minutes=5) and w.end == FIRED + timedelta(minutes=10)
    assert w.baseline_end == w.start and w.baseline_start < w.baseline_end


def test_window_is_configurable() -> None:
    w = incident_window(FIRED, before=timedelta(minutes=2), after=timedelta(minutes=30))
    assert w.start == FIRED - timedelta(minutes=2) and w.end == FIRED + timedelta(minutes=30)


def test_an_earlier_onset_moves_the_start_and_the_baseline_back() -> None:
    onset = FIRED - timedelta(minutes=8)
    w = with_onset(incident_window(FIRED), onset)
    assert w.onset == onset and w.start == onset and w.baseline_end == onset


def test_onset_ignores_a_weak_early_drift() -> None:
    assert derive_onset([(100, 2.0), (500, 90.0), (520, 60.0)]) == 500
    assert derive_onset([]) is None


def test_an_isolated_earlier_step_is_another_event_not_the_onset() -> None:
    t = 1_800_000_000
    distractor = (t, 40.0)  # a strong traffic step eight minutes before the cascade
    cascade = [(t + 480, 21.0), (t + 600, 38.0), (t + 750, 37.0), (t + 870, 32.0), (t + 780, 23.0)]
    assert derive_onset([distractor, *cascade]) == t + 480
    # Within ONSET_GAP_S of the cascade it is part of it: the earliest strong change point still wins.
    assert derive_onset([(t + 300, 40.0), *cascade]) == t + 300
    # Two bursts: the one carrying more score is the incident.
    assert derive_onset([(t, 30.0), (t + 60, 30.0), (t + 1000, 25.0)]) == t


def test_fired_at_ignores_starts_at_the_ends_of_the_calendar_and_falls_back_to_now() -> None:
    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    page = datetime(2026, 3, 1, 11, 58, tzinfo=UTC)
    hostile = [datetime(1, 1, 1, 0, 0, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)]
    assert fired_at_of([*hostile, page], now) == page
    assert fired_at_of(hostile, now) == now
    assert fired_at_of([page.replace(tzinfo=None)], now) == page  # SQLite's naive UTC
    replayed = datetime(2024, 5, 1, 3, 0, tzinfo=UTC)
    assert fired_at_of([replayed, *hostile], now) == replayed  # an old incident replayed is still windowed


def test_window_around_an_extreme_fired_at_saturates_instead_of_overflowing() -> None:
    first = incident_window(datetime(1, 1, 1, 0, 0, 1, tzinfo=UTC))
    assert first.start == first.baseline_start == datetime.min.replace(tzinfo=UTC)
    last = incident_window(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC))
    assert last.end == datetime.max.replace(tzinfo=UTC)
    assert with_onset(first, first.fired_at).baseline_start == datetime.min.replace(tzinfo=UTC)
