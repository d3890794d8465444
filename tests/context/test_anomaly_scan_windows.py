"""The change-point scan's sliding windows give what sorting every window again gives, value for value.

`anomaly._scan` keeps the baseline and the after-stretch sorted as they slide
and selects the MAD from the two sorted runs of deviations around the median.
Here every candidate is checked against the plain definition: the median of
the baseline, the median of |v - median|, the median of the after-stretch.
"""

from __future__ import annotations

import random

from rootward.context.anomaly import SCORE_CAP, _scan


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _series(rng: random.Random, kind: str, n: int) -> list[float]:
    if kind == "gauss":
        return [rng.gauss(100.0, 15.0) for _ in range(n)]
    if kind == "few_values":  # ties everywhere, as small integer counters have
        return [float(rng.randrange(4)) for _ in range(n)]
    return [0.0 if rng.random() < 0.7 else rng.expovariate(0.1) for _ in range(n)]  # mostly zero, spiky


def _windows(rng: random.Random, n: int) -> tuple[list[int], list[int], list[int]]:
    """Candidates k with baselines [b0, k) and afters [k, a1) whose ends only move right (sometimes jumping)."""
    ks, b0s, a1s = [], [], []
    k, b0 = rng.randrange(2, 6), 0
    while k < n - 1:
        b0 = min(k - 1, max(b0, k - rng.randrange(2, 40)))
        ks.append(k)
        b0s.append(b0)
        a1s.append(max(a1s[-1] if a1s else 0, min(n, k + rng.randrange(1, 12))))
        k += rng.choice((1, 1, 2, 15))  # a jump past the old baseline's end now and then
    return ks, b0s, a1s


def test_scan_equals_sorting_every_window_again() -> None:
    rng = random.Random(20260315)
    for trial in range(200):
        values = _series(rng, ("gauss", "few_values", "spiky")[trial % 3], rng.randrange(8, 160))
        ks, b0s, a1s = _windows(rng, len(values))
        floor = rng.choice((1e-12, 0.5))
        for (z, k, med, after, scale), b0, a1 in zip(_scan(values, ks, b0s, a1s, floor), b0s, a1s, strict=True):
            base, stretch = values[b0:k], values[k:a1]
            assert med == _median(base)
            assert after == _median(stretch)
            relative = max(0.05 * abs(med), floor)
            spread = 1.4826 * max(med - min(base), max(base) - med)
            expected = relative if spread <= relative else max(relative, 1.4826 * _median([abs(v - med) for v in base]))
            assert scale == expected
            assert z == max(-SCORE_CAP, min(SCORE_CAP, (after - med) / scale))
