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
