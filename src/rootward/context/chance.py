"""How likely a count is by chance: binomial tails that hold for any number of trials.

Counts are read the same way everywhere: log lines of a template after the onset
against its rate before (`context.logs`), calls that failed against the
baseline's share (`context.trace_evidence`), and whether a log change is news
at all (`engine.verdict`). A tail summed with `math.comb` overflows a float past
about a thousand trials (a chatty template, a busy edge), so it is summed in log
space, from the side of the mode where the terms only shrink.
"""

from __future__ import annotations

import math

# Terms past this share of the running sum no longer change it.
_NEGLIGIBLE = 1e-17


def binomial_tail(n: int, k: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0 or p >= 1.0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if k > n * p:
        return min(1.0, _sum_away_from_mode(n, k, p, +1))
    return max(0.0, 1.0 - _sum_away_from_mode(n, k - 1, p, -1))


def _sum_away_from_mode(n: int, start: int, p: float, step: int) -> float:
    """The pmf summed from `start` outwards (`step` +1: up to n, -1: down to 0); `start` is on the
    far side of the mode, so each term is smaller than the last and the sum stops when they vanish."""
    log_term = math.lgamma(n + 1) - math.lgamma(start + 1) - math.lgamma(n - start + 1)
    log_term += start * math.log(p) + (n - start) * math.log1p(-p)
    term = math.exp(log_term)
    total, odds, i = term, p / (1.0 - p), start
    end = n if step > 0 else 0
    while i != end:
        term *= (n - i) / (i + 1) * odds if step > 0 else i / (n - i + 1) / odds
        i += step
        total += term
        if term <= total * _NEGLIGIBLE:
            break
    return total


def chance_of_rise(count_before: int, count_after: int, seconds_before: float, seconds_after: float) -> float:
    """How likely `count_after` or more of the events fall after the split if their rate did not change.

    Given the events in both stretches, each falls after the split with the share of
    time that stretch has (the exact conditional test of two Poisson rates).
    """
    share = seconds_after / max(seconds_before + seconds_after, 1e-9)
    return binomial_tail(count_before + count_after, count_after, share)
