"""The sliding sorted window gives the medians of sorting each window again, value for value."""

from __future__ import annotations

import random

from rootward.context.sorted_window import SortedWindow


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


def test_median_and_deviation_equal_sorting_every_window_as_it_slides() -> None:
    rng = random.Random(20260315)
    for trial in range(150):
        values = _series(rng, ("gauss", "few_values", "spiky")[trial % 3], rng.randrange(6, 160))
        window = SortedWindow(values)
        lo = hi = 0
        while hi < len(values):
            lo = min(len(values) - 1, lo + rng.randrange(4))  # sometimes a jump past the old end
            hi = max(hi, lo + 1, min(len(values), hi + rng.randrange(6)))
            window.slide(lo, hi)
            part = values[lo:hi]
            med = _median(part)
            assert len(window) == len(part)
            assert window.median() == med
            assert window.median_deviation(med) == _median([abs(v - med) for v in part])
            other = part[0]  # a centre that is not the median works too
            assert window.median_deviation(other) == _median([abs(v - other) for v in part])


def test_a_window_that_jumps_past_its_old_end_starts_afresh() -> None:
    window = SortedWindow([5.0, 1.0, 3.0, 9.0, 7.0, 8.0])
    window.slide(0, 3)
    assert window.median() == 3.0
    window.slide(4, 6)
    assert len(window) == 2 and window.median() == 7.5
    assert window.median_deviation(7.5) == 0.5
