"""The best flat-then-linear ("hinge") least-squares fit of a series, in linear time and memory.

`context.anomaly.ramp_fit` looks for leaks: a level, then a steady climb from
some hinge on. Fitting every candidate hinge as its own row of an n x n matrix
costs n^2 time and memory: at one sample a second over an hour, 13 million
values per array, hundreds of megabytes and a second per series. Each hinge's
residual sum of squares follows from suffix sums instead (the regressor is
t - t_k after the hinge and 0 before it), so all candidates are scored in O(n).

Those closed-form sums round differently from summing the residuals, so they
only pick the contenders: every hinge within a hair of the best (far more than
the rounding can move) is fitted again row by row, exactly as the matrix did,
and the smallest sum wins (the earliest hinge on a tie, as `argmin` chooses).
The fit returned is therefore the matrix fit itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Contenders refitted exactly: hinges whose closed-form sum lies within this share of the
# series' total sum of squares of the smallest one; at most RECHECK of them.
TIE_SHARE = 1e-9
RECHECK = 64


@dataclass(frozen=True)
class HingeFit:
    index: int  # the hinge: the sample where the climb starts
    sse: float
    slope: float
    level: float
    regressor: np.ndarray  # max(0, t - t[index])
    residuals: np.ndarray


def _fit_row(t: np.ndarray, y: np.ndarray, ym: float, k: int) -> HingeFit:
    """One hinge fitted the direct way: the arithmetic of one row of the n x n fit."""
    x = np.maximum(0.0, t - t[k])
    xm = x.mean()
    var = ((x - xm) ** 2).sum()
    cov = ((x - xm) * (y - ym)).sum()
    b = cov / var if var > 0 else 0.0
    c = ym - b * xm
    resid = y - (c + b * x)
    return HingeFit(k, float((resid**2).sum()), float(b), float(c), x, resid)


def _closed_form_sse(t: np.ndarray, y: np.ndarray, ym: float, candidates: int) -> np.ndarray:
    """Residual sum of squares of the hinge at each of the first `candidates` samples, from suffix sums.

    Times are taken from the last sample (u <= 0), so the sums near the end,
    where the regressor is small, stay small and exact enough.
    """
    n = len(t)
    u = t - t[-1]
    yc = y - ym

    def suffix(a: np.ndarray) -> np.ndarray:
        return np.cumsum(a[::-1])[::-1][:candidates]

    s1, s2, sy, suy = suffix(u), suffix(u * u), suffix(yc), suffix(u * yc)
    uk = u[:candidates]
    m = (n - np.arange(candidates)).astype(float)
    sx = s1 - m * uk  # sum of the regressor
    sxx = s2 - 2 * uk * s1 + m * uk * uk  # sum of its squares
    xm = sx / n
    var = sxx - sx * xm
    cov = (suy - uk * sy) - xm * float(yc.sum())
    gain = np.where(var > 0, cov * cov / np.where(var > 0, var, 1.0), 0.0)
    return float((yc * yc).sum()) - gain


def best_hinge(t: np.ndarray, y: np.ndarray, candidates: int) -> HingeFit:
    """The least-squares hinge fit of y over t (ascending), the hinge at one of the first `candidates` samples."""
    ym = y.mean()
    approx = _closed_form_sse(t, y, ym, candidates)
    total = float(((y - ym) ** 2).sum())
    near = np.nonzero(approx <= approx.min() + TIE_SHARE * total)[0]
    if len(near) > RECHECK:
        near = np.sort(near[np.argsort(approx[near], kind="stable")[:RECHECK]])
    fits = [_fit_row(t, y, ym, int(k)) for k in near]
    return min(fits, key=lambda f: (f.sse, f.index))
