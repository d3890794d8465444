"""Binomial tails that hold for any number of trials: exact on small counts, finite on large ones."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from rootward.context.chance import binomial_tail, chance_of_rise


def _exact(n: int, k: int, p: Fraction) -> float:
    return float(sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(max(k, 0), n + 1)))


@pytest.mark.parametrize("n", [0, 1, 2, 5, 17, 60, 200])
@pytest.mark.parametrize("p", [Fraction(1, 1000), Fraction(1, 7), Fraction(1, 2), Fraction(9, 10)])
def test_the_tail_matches_the_exact_sum(n: int, p: Fraction) -> None:
    for k in range(-1, n + 2):
        assert binomial_tail(n, k, float(p)) == pytest.approx(_exact(n, k, p), rel=1e-9, abs=1e-300)


def test_a_thousand_trials_and_more_do_not_overflow() -> None:
    """`math.comb(1100, 550)` is past a float's range: summed plainly, a chatty template raised OverflowError."""
    assert 0.0 < binomial_tail(3000, 1500, 0.3) < 1e-100
    assert binomial_tail(20_000, 1, 0.5) == 1.0
    assert binomial_tail(20_000, 10_000, 0.5) == pytest.approx(0.5028, abs=1e-4)
    assert binomial_tail(20_000, 19_990, 0.5) == 0.0


def test_edges() -> None:
    assert binomial_tail(10, 0, 0.3) == 1.0
    assert binomial_tail(10, 11, 0.3) == 0.0
    assert binomial_tail(10, 3, 0.0) == 0.0
    assert binomial_tail(10, 10, 1.0) == 1.0


def test_a_rate_that_tripled_over_a_handful_of_lines_is_likely_by_chance() -> None:
    # 3 lines in 30 minutes, then 5 in 17: each of the 8 falls in the later stretch with its share of time.
    assert chance_of_rise(3, 5, 1800, 1020) == pytest.approx(_exact(8, 5, Fraction(1020, 2820)))
    assert chance_of_rise(3, 5, 1800, 1020) > 0.1
    assert chance_of_rise(3, 30, 1800, 900) < 1e-9
