"""A move near the alert whose baseline holds an earlier episode of the same series is scored without it.

The series is a real one: Online Boutique's frontend CPU (cores, one sample a minute) in
Nezha's window around a CPU fault injected at sample 20, with the previous fault at the same
pod in samples 3 to 7 (the data keeps only the minutes around each injection). Within the
6-minute look-back the move scored 3.3 spreads against a baseline widened by that earlier
episode, and the CPU fault read as no anomaly at all.
"""

from __future__ import annotations

from rootward.context.anomaly import detect_anomalies
from rootward.domain.telemetry import MetricSeries

T0 = 1_800_000_000
STEP = 60
FIRED = T0 + 20 * STEP + 55
# fmt: off
CPU = [
    0.0031, 0.0045, 0.003, 0.0117, 0.0142, 0.0164, 0.0205, 0.0156, 0.0068, 0.0037,
    0.0033, 0.005, 0.0026, 0.0025, 0.003, 0.0054, 0.0052, 0.0035, 0.0055, 0.0052,
    0.0147, 0.0134, 0.0199, 0.0, 0.0053, 0.0038, 0.0038, 0.0039, 0.003,
]
# fmt: on
QUIET_BEFORE = [0.0037, 0.0033, 0.005, 0.0026, 0.0025]  # samples 3..7 as the quiet minutes around them


def _anomalies(values: list[float], metric: str = "cpu_usage") -> list[tuple[int, float]]:
    series = MetricSeries("frontend", metric, tuple(T0 + i * STEP for i in range(len(values))), tuple(values))
    found, _ = detect_anomalies([series], fired_at=FIRED, end=FIRED + 480)
    return [((a.onset - T0) // STEP, a.score) for a in found]


def test_a_move_whose_baseline_holds_an_earlier_episode_is_scored_without_it() -> None:
    [(onset, score)] = _anomalies(CPU)
    assert onset == 20 and score >= 5.0


def test_without_the_earlier_episode_the_same_move_scores_as_it_always_did() -> None:
    [(onset, score)] = _anomalies(CPU[:3] + QUIET_BEFORE + CPU[8:])
    assert onset == 20 and score > 8.0


def test_a_weak_move_with_no_earlier_episode_stays_below_the_threshold() -> None:
    weak = CPU[:3] + QUIET_BEFORE + CPU[8:20] + [0.0075, 0.007, 0.008] + CPU[23:]
    assert _anomalies(weak) == []


def test_an_earlier_move_the_other_way_does_not_rescore_a_rise() -> None:
    dip = CPU[:3] + [0.0, 0.0, 0.0, 0.0, 0.0] + CPU[8:20] + [0.0075, 0.007, 0.008] + CPU[23:]
    assert _anomalies(dip) == []


def test_an_earlier_move_that_never_came_back_is_no_episode_to_leave_out() -> None:
    held = CPU[:3] + [0.0117, 0.0142, 0.0164, 0.0205, 0.0156] + [0.012] * 12 + CPU[20:23] + [0.012] * 6
    assert all(onset < 20 for onset, _ in _anomalies(held))
