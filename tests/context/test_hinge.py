"""The linear-time hinge fit is the n x n least-squares fit it replaced, to the last bit."""

from __future__ import annotations

import random

import numpy as np

from rootward.context.hinge import best_hinge


def _matrix_fit(t: np.ndarray, y: np.ndarray, candidates: int) -> tuple[int, float, float, float, np.ndarray]:
    """The fit as it was computed before: one row per candidate hinge, argmin of the residual sums."""
    ks = np.arange(0, candidates)
    x = np.maximum(0.0, t[None, :] - t[ks][:, None])
    xm = x.mean(axis=1)
    ym = y.mean()
    var = ((x - xm[:, None]) ** 2).sum(axis=1)
    cov = ((x - xm[:, None]) * (y - ym)[None, :]).sum(axis=1)
    b = np.where(var > 0, cov / np.where(var > 0, var, 1.0), 0.0)
    c = ym - b * xm
    resid = y[None, :] - (c[:, None] + b[:, None] * x)
    sse = (resid**2).sum(axis=1)
    best = int(np.argmin(sse))
    return best, float(sse[best]), float(b[best]), float(c[best]), resid[best]


def _series(rng: random.Random, kind: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    t = np.cumsum([rng.choice([1, 1, 1, 2, 60, 0]) for _ in range(n)]).astype(float)
    i = np.arange(n)
    hinge = rng.randrange(n)
    level = rng.choice([0.0, 3.0, 2.0e8])
    wobble = np.array([rng.gauss(0.0, 1.0) for _ in range(n)]) * (1.0 + 0.01 * level)
    shapes = (
        level + wobble,  # noise only
        level + np.maximum(0, i - hinge) * (1.0 + 0.001 * level) + wobble,  # a leak
        np.where(i > hinge, 1.5 * level + 3.0, level) + 0.01 * wobble,  # a step
        np.maximum(0, i - hinge) * 1.0,  # an exact hinge, no noise
        np.round(5.0 + 2.0 * wobble / (1.0 + 0.01 * level)),  # small integers, many ties
    )
    return t - t[0], shapes[kind]


def test_best_hinge_equals_the_matrix_fit_on_noise_leaks_steps_and_ties() -> None:
    rng = random.Random(7)
    for trial in range(250):
        t, y = _series(rng, trial % 5, rng.randrange(10, 260))
        if float(np.ptp(y)) == 0.0:
            continue
        best, sse, slope, level, resid = _matrix_fit(t, y, len(t) - 4)
        fit = best_hinge(t, y, candidates=len(t) - 4)
        assert (fit.index, fit.sse, fit.slope, fit.level) == (best, sse, slope, level), trial
        assert np.array_equal(fit.residuals, resid)


def test_best_hinge_finds_a_leak_in_an_hour_of_one_second_samples() -> None:
    n = 4000  # the n x n fit would hold 16 million values per array here
    t = np.arange(n, dtype=float)
    y = 1.0e8 + np.maximum(0.0, t - 1500.0) * 2.0e4 + np.sin(t * 1.7) * 1.0e4
    fit = best_hinge(t, y, candidates=n - 4)
    assert abs(fit.index - 1500) <= 2
    assert abs(fit.slope - 2.0e4) / 2.0e4 < 1e-3
