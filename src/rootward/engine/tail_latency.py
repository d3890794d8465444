"""Which part of a latency distribution moved: the tail alone says a share of requests hit something.

A delay on a network adds the same time to every request: the median moves as far
as the tail, relatively further. Saturation slows every request alike. Packets
lost to a link cost the requests they hit a retransmission timeout (200 ms or
more) and leave the rest as they were: the tail jumps, the median holds. Only
series named for their quantile (`metric_names.latency_quantile`: `latency_p50_ms`
and `latency_p90_ms`, RCAEval's `latency-50` and `latency-90`) say this.
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
