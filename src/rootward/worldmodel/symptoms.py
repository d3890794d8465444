"""Symptom onsets from telemetry: when each entity first showed the incident, alert or not.

Alerts are a sparse and late view of a cascade: most intermediate services
have no rule of their own, and a rule's `for:` clause adds minutes. The
telemetry shows both: a service on the cascade's path moves its latency,
errors or throughput when the cascade reaches it. This module finds, per
entity, the first *sustained* move after a given time, against a robust
baseline of the stretch before it:

- metrics: every series of the entity; the baseline is the median and MAD of
  the samples before `since` (counters are differenced first); a move is
  `MIN_RUN` consecutive samples on the same side, each outside the baseline's
  whole range, at least `Z` robust deviations and `MIN_RELATIVE` of the
  baseline away (a small integer series such as lock waits steps by one
  within its range all day);
- traces: the calls into each service, in buckets of `TRACE_BUCKET_S`; the
  error share is tested as a binomial against the baseline's share, and the
  median duration against the baseline's (on a log scale, so a service that
  answers in 2 ms and one that answers in 2 s are judged alike); two
  consecutive buckets make a move.

No signal is named here: which metric moved is recorded, never required.
The learners (`dynamics.py`) take the earliest sign per entity.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from statistics import median

from rootward.domain.telemetry import MetricSeries, Span
from rootward.worldmodel.history import ObservedSymptom

BASELINE_S = 30 * 60
MIN_BASELINE = 5
MIN_RUN = 3
Z = 6.0
MIN_RELATIVE = 0.2
TRACE_BUCKET_S = 60
TRACE_MIN_CALLS = 3
TRACE_Z = 4.0
TRACE_LATENCY_FACTOR = 1.5
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _counter(series: MetricSeries) -> bool:
    values = series.values
    return series.metric.endswith("_total") and all(b >= a for a, b in zip(values, values[1:], strict=False))


def _points(series: MetricSeries) -> tuple[list[int], list[float]]:
    """Samples as (timestamps, values); a counter becomes its increase per sample."""
    ts, vs = list(series.timestamps), list(series.values)
    if _counter(series) and len(vs) > 1:
        return ts[1:], [b - a for a, b in zip(vs, vs[1:], strict=False)]
    return ts, vs


def series_onset(series: MetricSeries, since: int, until: int | None = None) -> int | None:
    """Epoch second of the first sustained move at or after `since`, or None (no baseline, no move)."""
    ts, vs = _points(series)
    base = [v for t, v in zip(ts, vs, strict=True) if since - BASELINE_S <= t < since]
    if len(base) < MIN_BASELINE:
        return None
    med = median(base)
    mad = 1.4826 * median([abs(v - med) for v in base])
    scale = max(mad, 0.02 * abs(med), 1e-9)
    low, high = min(base), max(base)
    after = [(t, v) for t, v in zip(ts, vs, strict=True) if t >= since and (until is None or t <= until)]
    run_start, run_sign, run = 0, 0, 0
    for t, v in after:
        dev = v - med
        outside = v > high or v < low  # small integer series (locks, connections) step within their range
        moved = outside and abs(dev) / scale >= Z and abs(dev) >= MIN_RELATIVE * max(abs(med), scale)
        sign = (dev > 0) - (dev < 0) if moved else 0
        if sign and sign == run_sign:
            run += 1
        elif sign:
            run_start, run_sign, run = t, sign, 1
        else:
            run_sign, run = 0, 0
        if run >= MIN_RUN:
            return run_start
    return None


def metric_symptoms(
    series: Iterable[MetricSeries], since: datetime, until: datetime | None = None
) -> tuple[ObservedSymptom, ...]:
    """The earliest sustained move per entity among its series, from `since` on."""
    start = int(since.timestamp())
    end = int(until.timestamp()) if until is not None else None
    first: dict[str, tuple[int, str]] = {}
    for s in series:
        onset = series_onset(s, start, end)
        if onset is not None and (s.service not in first or (onset, s.metric) < first[s.service]):
            first[s.service] = (onset, s.metric)
    return tuple(
        ObservedSymptom(entity, _EPOCH + timedelta(seconds=at), metric, "metrics")
        for entity, (at, metric) in sorted(first.items())
    )


def _incoming(spans: Sequence[Span]) -> dict[str, list[Span]]:
    """Per service, the spans of work it did for a caller: server/consumer spans, else untyped roots of its work."""
    out: dict[str, list[Span]] = {}
    for span in spans:
        if span.kind in ("server", "consumer") or (span.kind is None and span.parent_id is not None):
            out.setdefault(span.service, []).append(span)
    return out


def _bucketed(spans: list[Span]) -> dict[int, list[Span]]:
    out: dict[int, list[Span]] = {}
    for span in spans:
        out.setdefault(int(span.start.timestamp()) // TRACE_BUCKET_S, []).append(span)
    return out


def _bucket_moved(calls: list[Span], error_share: float, log_latency: float, log_spread: float) -> bool:
    if len(calls) < TRACE_MIN_CALLS:
        return False
    errors = sum(1 for c in calls if c.status == "error")
    expected = len(calls) * error_share
    spread = math.sqrt(len(calls) * max(error_share, 0.01) * (1 - min(error_share, 0.99)))
    if (errors - expected) / spread >= TRACE_Z and errors >= 2:
        return True
    latency = median(math.log(max(c.duration_ms, 1e-3)) for c in calls)
    threshold = max(math.log(TRACE_LATENCY_FACTOR), TRACE_Z * log_spread / math.sqrt(len(calls)))
    return latency - log_latency >= threshold


def service_trace_onset(calls: list[Span], since: int) -> int | None:
    """Epoch second of the first of two consecutive buckets where the calls into a service went wrong."""
    buckets = _bucketed(calls)
    first = since // TRACE_BUCKET_S
    base = [c for b, cs in buckets.items() if first - BASELINE_S // TRACE_BUCKET_S <= b < first for c in cs]
    if len(base) < MIN_BASELINE * TRACE_MIN_CALLS:
        return None
    error_share = sum(1 for c in base if c.status == "error") / len(base)
    logs = [math.log(max(c.duration_ms, 1e-3)) for c in base]
    log_latency = median(logs)
    log_spread = 1.4826 * median([abs(x - log_latency) for x in logs]) or 0.05
    moved = sorted(
        b for b, cs in buckets.items() if b >= first and _bucket_moved(cs, error_share, log_latency, log_spread)
    )
    for b, nxt in zip(moved, moved[1:], strict=False):
        if nxt == b + 1:
            return max(since, b * TRACE_BUCKET_S)
    return None


def trace_symptoms(spans: Iterable[Span], since: datetime) -> tuple[ObservedSymptom, ...]:
    """Per service, when the calls into it first went wrong (errors or latency), from `since` on."""
    start = int(since.timestamp())
    out = []
    for service, calls in sorted(_incoming(list(spans)).items()):
        onset = service_trace_onset(calls, start)
        if onset is not None:
            out.append(ObservedSymptom(service, _EPOCH + timedelta(seconds=onset), "calls", "traces"))
    return tuple(out)


def earliest(*groups: Iterable[ObservedSymptom]) -> tuple[ObservedSymptom, ...]:
    """One symptom per entity: the earliest over every source."""
    first: dict[str, ObservedSymptom] = {}
    for group in groups:
        for symptom in group:
            known = first.get(symptom.entity)
            if known is None or symptom.starts_at < known.starts_at:
                first[symptom.entity] = symptom
    return tuple(first[name] for name in sorted(first))
