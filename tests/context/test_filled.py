"""A capacity share that climbed to its limit and stayed there reads as a filled disk, from a window's end of it.

A disk fills for hours, so a 30-minute window holds the last of the climb and
the plateau at 100 %: no flat start for a hinge, a baseline already climbing
for a change point. One sample a second, as `bench`'s 1 Hz copies have.
"""

from __future__ import annotations

import numpy as np

from rootward.context.anomaly import _filled, detect_anomalies
from rootward.domain.telemetry import MetricSeries

T0 = 1_800_000_000
FIRED = T0 + 900  # the alert, 15 minutes into the window
CLIMB = 840  # seconds of climb in the window before the disk is full


def _disk(values: list[float], metric: str = "disk_used_ratio") -> MetricSeries:
    return MetricSeries("vm-7", metric, tuple(T0 + i for i in range(len(values))), tuple(values))


def _climb_then(after: list[float], start: float = 0.78, seed: int = 1) -> list[float]:
    rng = np.random.default_rng(seed)
    climb = [start + (0.999 - start) * i / CLIMB + rng.normal(0, 0.001) for i in range(CLIMB)]
    return climb + after


def _plateau(n: int, level: float = 0.998, seed: int = 2) -> list[float]:
    rng = np.random.default_rng(seed)
    return [min(1.0, level + rng.normal(0, 0.0015)) for _ in range(n)]


def test_a_disk_that_filled_up_while_the_window_began_is_a_ramp_at_its_host() -> None:
    anomalies, _ = detect_anomalies([_disk(_climb_then(_plateau(960)))], fired_at=FIRED, end=T0 + 1800)
    assert [(a.service, a.family, a.direction, a.shape) for a in anomalies] == [("vm-7", "disk", "up", "ramp")]
    assert anomalies[0].after >= 0.98


def test_a_disk_full_from_the_window_start_shows_no_climb() -> None:
    anomalies, _ = detect_anomalies([_disk(_plateau(1800))], fired_at=FIRED, end=T0 + 1800)
    assert anomalies == []


def test_a_climb_that_fell_back_from_the_limit_held_nothing() -> None:
    values = _climb_then(_plateau(120) + [0.6] * 840)
    ts = np.arange(len(values)) + T0
    assert _filled("disk_used_ratio", ts, np.asarray(values)) is None
    assert _filled("disk_used_ratio", ts[: CLIMB + 120], np.asarray(values[: CLIMB + 120])) is not None


def test_only_a_share_of_capacity_says_where_the_limit_is() -> None:
    values = _climb_then(_plateau(960))
    ts = np.arange(len(values)) + T0
    assert _filled("disk_used_bytes", ts, np.asarray(values)) is None
    percent = np.asarray(values) * 100
    assert _filled("disk_utilization", ts, percent) is not None
    overshoot = np.asarray(values) * 1.01  # a noisy ratio passing 1 is still a ratio, not a percentage
    assert _filled("disk_used_ratio", ts, overshoot) is not None
