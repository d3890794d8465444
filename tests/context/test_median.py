"""`context.median` gives numpy's median exactly, whatever the size, order, ties or NaN."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rootward.context.median import SORT_BELOW, median


@pytest.mark.parametrize("size", [1, 2, 3, 10, 11, SORT_BELOW - 1, SORT_BELOW, SORT_BELOW + 1, 1000, 1001])
def test_equals_numpy_median_bit_for_bit(size: int) -> None:
    rng = np.random.default_rng(size)
    tied = rng.integers(0, 5, size=size)
    for values in (rng.lognormal(size=size), tied.astype(float), tied):
        assert median(values) == float(np.median(values))


def test_leaves_its_input_unsorted() -> None:
    values = np.array([5.0, 1.0, 4.0, 2.0, 3.0] * 40)
    before = values.copy()
    median(values)
    assert np.array_equal(values, before)


def test_nan_and_empty_give_nan_as_numpy_does() -> None:
    assert math.isnan(median(np.array([1.0, np.nan, 3.0])))
    assert math.isnan(median(np.array([1.0] * 150 + [np.nan])))
    assert math.isnan(median(np.array([], dtype=float)))
