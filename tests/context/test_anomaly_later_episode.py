"""A resource that moved, came back, and moved again is dated by its second move: the first one was over."""

from __future__ import annotations

import numpy as np

from rootward.context.anomaly import detect_anomalies
from rootward.domain.telemetry import MetricSeries

T0 = 1_800_000_000
STEP = 30
FIRED = T0 + 60 * STEP


def _series(metric: str, values: list[float]) -> MetricSeries:
    return MetricSeries("worker", metric, tuple(T0 + i * STEP for i in range(len(values))), tuple(values))


def _noise(n: int, level: float, spread: float, seed: int) -> list[float]:
    return list(level + np.random.default_rng(seed).normal(0, spread, n))


def _onsets(metric: str, values: list[float]) -> list[int]:
    anomalies, _ = detect_anomalies([_series(metric, values)], fired_at=FIRED, end=FIRED + 600)
    return [(a.onset - T0) // STEP for a in anomalies]


# Busy from sample 49 to 53 (an earlier fault's tail), back at its level for 2 minutes, busy again from 58.
TWO_EPISODES = _noise(49, 0.2, 0.01, 1) + _noise(5, 0.9, 0.02, 2) + _noise(4, 0.2, 0.01, 3) + _noise(28, 0.7, 0.02, 4)


def test_a_second_move_after_the_series_came_back_is_dated_by_the_second() -> None:
    """The first move scored best (the second's baseline held it) and dated the CPU 4.5 minutes early."""
    assert _onsets("cpu_usage", TWO_EPISODES) == [58]


def test_one_sample_back_inside_a_sustained_move_is_no_new_episode() -> None:
    values = _noise(49, 0.2, 0.01, 1) + _noise(37, 0.9, 0.02, 2)
    values[53] = 0.2  # a missed beat, not the end of anything
    assert _onsets("cpu_usage", values) == [49]


def test_a_move_that_never_came_back_keeps_its_onset() -> None:
    values = _noise(49, 0.2, 0.01, 1) + _noise(5, 0.9, 0.02, 2) + _noise(32, 0.7, 0.02, 4)
    assert _onsets("cpu_usage", values) == [49]


def test_a_symptom_keeps_its_first_burst() -> None:
    """An alert rule may fire on a latency burst that is over: symptoms are not split into episodes."""
    latency = [v * 100 for v in TWO_EPISODES]
    assert _onsets("latency_p99_ms", latency) == [49]
