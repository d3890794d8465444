"""The incident window and its data-derived onset."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rootward.context.window import derive_onset, incident_window, with_onset

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
