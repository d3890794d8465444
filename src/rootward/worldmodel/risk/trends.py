"""Robust trends of one series: is it still growing, how fast, and when does it cross a line?

- **Theil–Sen** slope (the median of every pairwise slope) with the median
  intercept: one scrape spike, a log rotation or a GC drop moves the fit by
  at most one pair's worth, where least squares would tilt the whole line.
- **Mann–Kendall** statistic as a z-score: whether the series rises more
  often than it falls, without assuming a shape; |z| ≥ 1.96 is significant
  at 5 %.
- **Still growing**: the whole window rises significantly *and* so does its
  recent part, at no less than `MIN_RECENT_SHARE` of the window's slope. A
  curve that climbed and then levelled off (a cache that warmed up, a JVM
  heap that reached its working set) is a plateau, not a leak, and crosses
  nothing.

Series are thinned to at most `MAX_POINTS` evenly spaced samples first, so a
week at 15 s resolution costs the same as a day.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MAX_POINTS = 240
RECENT_SHARE = 1 / 3  # the recent part: the last third of the samples
MIN_RECENT_SHARE = 0.5
MIN_Z = 3.0  # the whole window's Mann-Kendall z
MIN_RECENT_Z = 1.96
MIN_POINTS = 8


@dataclass(frozen=True)
class Fit:
    slope: float  # value units per second
    intercept: float  # value at t = 0 (epoch)

    def at(self, t: float) -> float:
        return self.intercept + self.slope * t


@dataclass(frozen=True)
class Trend:
    """A series that is still growing: its recent fit, its level now, and the evidence for the trend."""

    fit: Fit  # Theil-Sen over the recent part: the rate it grows at now
    level: float  # the fit's value at the last sample
    last_t: int
    z: float  # Mann-Kendall z of the whole window
    recent_z: float


def thin(ts: list[int], vs: list[float], max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    t, v = np.asarray(ts, dtype=float), np.asarray(vs, dtype=float)
    keep = np.isfinite(v)
    t, v = t[keep], v[keep]
    if len(t) > max_points:
        pick = np.linspace(0, len(t) - 1, max_points).round().astype(int)
        t, v = t[pick], v[pick]
    return t, v


def theil_sen(t: np.ndarray, v: np.ndarray) -> Fit:
    i, j = np.triu_indices(len(t), k=1)
    dt = t[j] - t[i]
    ok = dt > 0
    slope = float(np.median((v[j] - v[i])[ok] / dt[ok])) if ok.any() else 0.0
    return Fit(slope, float(np.median(v - slope * t)))


def mann_kendall_z(v: np.ndarray) -> float:
    """Mann–Kendall S over its standard deviation (no tie correction: ties only make it more careful)."""
    n = len(v)
    if n < 3:
        return 0.0
    i, j = np.triu_indices(n, k=1)
    s = float(np.sign(v[j] - v[i]).sum())
    sd = math.sqrt(n * (n - 1) * (2 * n + 5) / 18)
    return 0.0 if s == 0 else (s - math.copysign(1.0, s)) / sd


def growing(ts: list[int], vs: list[float]) -> Trend | None:
    """The trend of a series that is still rising (window and recent part), or None (flat, falling, plateau)."""
    t, v = thin(ts, vs)
    if len(t) < MIN_POINTS:
        return None
    z = mann_kendall_z(v)
    if z < MIN_Z:
        return None
    recent = max(MIN_POINTS // 2, int(len(t) * RECENT_SHARE))
    rt, rv = t[-recent:], v[-recent:]
    recent_z = mann_kendall_z(rv)
    whole, now = theil_sen(t, v), theil_sen(rt, rv)
    if recent_z < MIN_RECENT_Z or now.slope <= 0 or now.slope < MIN_RECENT_SHARE * whole.slope:
        return None
    return Trend(now, now.at(float(rt[-1])), int(rt[-1]), z, recent_z)


def seconds_until(trend: Trend, threshold: float) -> float | None:
    """From the last sample until the recent fit reaches `threshold` (0 when it already has)."""
    if trend.level >= threshold:
        return 0.0
    if trend.fit.slope <= 0:
        return None
    return (threshold - trend.level) / trend.fit.slope
