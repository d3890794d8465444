"""A count of harmful events that was not reported counted none: error series exist only from their first event.

Prometheus creates a counter's series at its first increment
(`http_requests_total{code="500"}` has no sample until the first 500, and a
`rate()` over it has none either); CloudWatch leaves out the periods of
`HTTPCode_Target_5XX_Count` that counted nothing. A bundle exported from
either holds an error series that begins at the fault, or one with holes
wherever nothing went wrong. With nothing before the onset, every
before/after comparison skips such a series, and the strongest sign of a
code fault is lost; with holes, its baseline is made of its bad periods only.

For a series that counts harmful events (the errors, restarts, packet-loss and
lock families of `metric_names`, and throttling: DynamoDB's
`ThrottledRequests`, Lambda's `Throttles`; but not a share of successes: no
sample of an availability is no data, not 100 %), the times its entity's other series were
sampled, a whole sampling step away from any sample of its own, are times it
counted none, and it reads zero there. Nothing else is filled: a CPU series
that starts late started late, and an entity with no other series says nothing
about when it was watched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from rootward.context.median import median
from rootward.context.metric_names import family_of, is_success_share, words_of
from rootward.domain.telemetry import MetricSeries

EVENT_FAMILIES = frozenset({"errors", "restarts", "packet_loss", "locks"})
# Throttled requests and CPU periods are counted events too, though their family is the CPU's.
_THROTTLED = re.compile(r"(?:^|_)throttl")


def counts_events(metric: str) -> bool:
    """Whether the series counts harmful events, so that no sample means none happened."""
    if _THROTTLED.search(words_of(metric)):
        return True
    return family_of(metric) in EVENT_FAMILIES and not is_success_share(metric)


def with_absent_zeros(series: Sequence[MetricSeries]) -> list[MetricSeries]:
    """The series, each event count given zeros where its entity was sampled and it was not."""
    if not any(counts_events(s.metric) for s in series):
        return list(series)
    watched: dict[str, list[MetricSeries]] = {}
    for s in series:
        if s.timestamps and not counts_events(s.metric):
            watched.setdefault(s.service, []).append(s)
    stamps = {entity: _stamps(group) for entity, group in watched.items()}
    return [_filled(s, *stamps[s.service]) if counts_events(s.metric) and s.service in stamps else s for s in series]


def _stamps(group: Sequence[MetricSeries]) -> tuple[np.ndarray, int]:
    """When an entity was sampled (its other series' times, merged) and its typical sampling step."""
    times = np.unique(np.concatenate([np.asarray(s.timestamps, dtype=np.int64) for s in group]))
    steps = [float(median(np.diff(s.timestamps))) for s in group if len(s.timestamps) >= 2]
    return times, max(1, round(float(np.median(steps)))) if steps else 0


def _filled(series: MetricSeries, times: np.ndarray, step: int) -> MetricSeries:
    if step <= 0 or not series.timestamps:
        return series
    own = np.asarray(series.timestamps, dtype=np.int64)
    # Distance from each sampling time to the nearest sample the series has.
    right = np.clip(np.searchsorted(own, times), 0, len(own) - 1)
    left = np.clip(right - 1, 0, len(own) - 1)
    nearest = np.minimum(np.abs(own[right] - times), np.abs(times - own[left]))
    empty = times[nearest >= step]
    if not len(empty):
        return series
    ts = np.concatenate([own, empty])
    vs = np.concatenate([np.asarray(series.values, dtype=float), np.zeros(len(empty))])
    order = np.argsort(ts, kind="stable")
    return MetricSeries(
        service=series.service,
        metric=series.metric,
        timestamps=tuple(ts[order].tolist()),
        values=tuple(vs[order].tolist()),
    )
