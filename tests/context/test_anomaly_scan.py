"""change_point and ramp_fit give, at 1 Hz and at 1/min, exactly what they gave before the sliding windows.

The expected tuples were recorded from the implementation that sorted every
window again and fitted every hinge as a row of an n x n matrix.
"""

from __future__ import annotations

import numpy as np
import pytest

from rootward.context.anomaly import change_point, ramp_fit

T0 = 1_773_490_000


def _noise(n: int, seed: int) -> np.ndarray:
    """Deterministic noise in [-1, 1) from a linear congruential generator: the same on every platform."""
    out, state = [], seed
    for _ in range(n):
        state = (1103515245 * state + 12345) % 2**31
        out.append(state / 2**30 - 1.0)
    return np.asarray(out)


def _step(step_s: int, n: int, at: int, level: float, jump: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    ts = T0 + step_s * np.arange(n, dtype=np.int64)
    return ts, level + (np.arange(n) >= at) * jump + _noise(n, seed) * level * 0.05


def _leak(n: int, hinge: int, level: float, slope: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    ts = T0 + np.arange(n, dtype=np.int64)
    return ts, level + np.maximum(0, np.arange(n) - hinge) * slope + _noise(n, seed) * level * 0.002


def test_change_point_at_one_sample_a_second_is_unchanged() -> None:
    ts, vs = _step(1, 3000, 2100, 40.0, 25.0, 3)
    fired = int(ts[2000])
    found = change_point(ts, vs, fired - 360, fired + 300, int(ts[-1]), "latency")
    assert found == (12.51782746181343, 1773492100, 39.96327786613256, 63.03673925809562, 66.99988566152751)


def test_change_point_at_one_sample_a_minute_is_unchanged() -> None:
    ts, vs = _step(60, 40, 30, 0.2, 0.5, 5)
    fired = int(ts[31])
    found = change_point(ts, vs, fired - 360, fired + 300, int(ts[-1]), "cpu")
    assert found == (49.42310670815108, 1773491800, 0.2029500187560916, 0.6933559697307646, 0.7096574268769472)


def test_change_point_of_a_flat_integer_series_is_zero() -> None:
    ts, vs = _step(1, 1200, 800, 3.0, 0.0, 9)
    fired = int(ts[900])
    assert change_point(ts, vs.round(), fired - 360, fired + 300, int(ts[-1]), "connections") == (
        0.0, 1773490540, 3.0, 3.0, 3.0,
    )  # fmt: skip


def test_change_point_skips_nan_samples() -> None:
    ts, vs = _step(60, 40, 30, 0.2, 0.5, 5)
    holed = vs.copy()
    holed[[3, 17, 35]] = np.nan
    keep = ~np.isnan(holed)
    fired = int(ts[31])
    assert change_point(ts, holed, fired - 360, fired + 300, int(ts[-1]), "cpu") == change_point(
        ts[keep], vs[keep], fired - 360, fired + 300, int(ts[-1]), "cpu"
    )


def test_ramp_fit_of_a_leak_at_one_sample_a_second_is_unchanged() -> None:
    ts, vs = _leak(2400, 600, 2.0e8, 5.0e4, 11)
    # Fitted in units of the series' largest value: the same fit, to rounding.
    assert ramp_fit(ts, vs) == pytest.approx(
        (292.7422196713146, 1773490600, 199986933.05544543, 289938738.4014779), rel=1e-9
    )


def test_ramp_fit_of_a_step_or_a_flat_line_is_none() -> None:
    ts, vs = _step(1, 2400, 1200, 2.0e8, 4.0e7, 13)
    assert ramp_fit(ts, vs) is None
    assert ramp_fit(ts, np.full(len(ts), 5.0)) is None


def test_cpu_per_request_is_that_of_a_lookup_of_each_timestamp() -> None:
    """`_ratio` (searchsorted over a sorted denominator) gives what a dict of its samples gave, ties included."""
    from rootward.context.anomaly import _ratio
    from rootward.domain.telemetry import MetricSeries

    rng = np.random.default_rng(7)
    for trial in range(200):
        num_t = tuple(sorted(int(t) for t in rng.integers(0, 40, 25)))
        den_t = [int(t) for t in rng.integers(0, 40, 30)]
        den_t = sorted(den_t) if trial % 3 else den_t  # out of order: the dict path
        num = MetricSeries("s", "cpu", num_t, tuple(float(v) for v in rng.choice([0.0, 1.5, 3.0, -2.0], 25)))
        den = MetricSeries(
            "s", "requests", tuple(den_t), tuple(float(v) for v in rng.choice([0.0, 2.0, 7.0, -1.0], 30))
        )
        rates = dict(zip(den.timestamps, den.values, strict=True))
        pairs = [(t, v / rates[t]) for t, v in zip(num.timestamps, num.values, strict=True) if rates.get(t, 0) > 0]
        assert _ratio(num, den) == (tuple(t for t, _ in pairs), tuple(v for _, v in pairs))
