"""Which part of a latency distribution moved: the tail alone says a share of requests hit something.

A delay on a network adds the same time to every request: the median moves as far
as the tail, relatively further. Saturation slows every request alike. Packets
lost to a link cost the requests they hit a retransmission timeout (200 ms or
more) and leave the rest as they were: the tail jumps, the median holds. Only
series named for their quantile (`metric_names.latency_quantile`: `latency_p50_ms`
and `latency_p90_ms`, RCAEval's `latency-50` and `latency-90`) say this.

Where losses are frequent enough to move the median too, the series says it
over time instead (`erratic`): a delay shifts every sample alike, so a latency
moves as a block and is as steady about its new level as it was about the old;
a retransmission timeout hits some requests and some seconds and not others, and
its length varies, so the series turns erratic about its new level.
"""

from __future__ import annotations

from collections.abc import Iterable

from rootward.context.anomaly import DEFAULT_THRESHOLD, ScoredSeries
from rootward.context.metric_names import latency_quantile

# A tail latency (p90 or higher) at twice its level or more ...
TAIL_ONLY_RISE = 2.0
# ... with the median's (p50 or lower) rise under a quarter of the tail's, relative to each one's level.
TAIL_SHARE = 0.25


def _rise(s: ScoredSeries) -> float:
    return max(0.0, s.after / s.baseline - 1.0) if s.baseline > 0 else 0.0


def tail_only(series: Iterable[ScoredSeries]) -> set[str]:
    """Entities whose tail latency rose (an anomaly, to TAIL_ONLY_RISE times its level or more) while the
    median latency of the same entity rose by under TAIL_SHARE of that."""
    tails: dict[str, float] = {}
    medians: dict[str, float] = {}
    for s in series:
        q = latency_quantile(s.metric)
        if q is not None and q <= 0.5:
            medians[s.service] = max(medians.get(s.service, 0.0), _rise(s))
        elif q is not None and q >= 0.9 and s.signed > 0 and s.score >= DEFAULT_THRESHOLD:
            tails[s.service] = max(tails.get(s.service, 0.0), _rise(s))
    return {
        e
        for e, tail in tails.items()
        if e in medians and tail >= TAIL_ONLY_RISE - 1.0 and medians[e] < TAIL_SHARE * tail
    }


# A latency whose relative spread since the onset is this many times its spread before turned erratic ...
ERRATIC_SPREAD = 1.5
# ... where that spread is this share of its level or more: a very steady series doubling a tiny spread
# (a 1-2 % wobble, as a smooth p99 over many requests has) is as steady as before for every purpose.
ERRATIC_MIN_SPREAD = 0.1


def erratic(series: Iterable[ScoredSeries]) -> set[str]:
    """Entities with a latency series that rose (an anomaly) and turned erratic about its new level: its
    relative spread since the onset (`ScoredSeries.spread_after`) ERRATIC_SPREAD times its spread before, and
    ERRATIC_MIN_SPREAD of its level or more."""
    return {
        s.service
        for s in series
        if s.family == "latency"
        and s.signed > 0
        and s.score >= DEFAULT_THRESHOLD
        and s.spread_before > 0
        and s.spread_after >= max(ERRATIC_SPREAD * s.spread_before, ERRATIC_MIN_SPREAD)
    }
