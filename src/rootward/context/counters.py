"""Cumulative counters are read as per-second rates, as Prometheus' `rate()` reads them.

A counter (`container_cpu_usage_seconds_total`, `http_requests_total`, a
histogram's `_count` and `_sum`) only ever grows: its level is everything
counted since the process started, so a CPU that doubled shows as a line that
got steeper, not as a change of level. Every reading downstream (change points,
change scores, "did it move") compares levels, and on a raw counter each of
them sees the same steady climb at every entity: a bundle exported from
Prometheus without `rate()` loses its strongest signal. The live source asks
for rates (`sources.metric_templates`); a bundle may hold the counters.

A series is a counter when its name says so (its last word is `total`, `count`
or `sum`: the Prometheus and OpenMetrics naming convention) and its values
agree: they climb at most samples (a count always at work), and never fall but
at a few resets, each to under half of what the counter read (it starts again
from zero; a dip is a level). The name alone is not enough (a CloudWatch
`Count` is a per-period sum, a gauge named `pending_count` rises and falls),
nor are the values alone (a disk filling up never falls either). A counter of
a handful of events (restarts: whole numbers that grew by at most SMALL_COUNT)
stays as it is: each of its steps is an event, and is read as one.

The rate keeps the series' name and its sample times, so evidence cites the
series the bundle holds. At each sample it is the increase per second since the
one before (as `rate()` stamps it), a fall being a reset from zero (the new
value is all that was counted); at the first sample, the increase to the second,
the one interval known there (a one-sided difference, as `numpy.gradient` takes
at an edge), so the baseline keeps every sample a short bundle has.
"""

from __future__ import annotations

import math

from rootward.context.metric_names import words_of
from rootward.domain.telemetry import MetricSeries

COUNTER_WORDS = frozenset({"total", "count", "sum"})
# A counter falls only when its process restarts: at most this share of its steps (and always 2) ...
RESET_SHARE = 0.05
# ... and then to under this share of what it read (it starts again from zero): a dip is no reset.
RESET_DROP = 0.5
MIN_SAMPLES = 3
# A counter read as a rate climbs at most samples (CPU seconds, requests, bytes: always at work).
# One that is flat most of the time counts rare events (errors), whose level steps already read
# as changes; and a per-period sum flat at zero that then rose with a fault is no counter at all.
CLIMB_SHARE = 0.5
# A whole-number counter that grew by at most this much over the window counts events, one by one.
SMALL_COUNT = 20


def named_counter(metric: str) -> bool:
    """Whether the name follows the counter convention (last word `total`, `count` or `sum`).

    A label set written after the name, as Prometheus prints a series
    (`http_requests_total{code="500"}`), is not part of it.
    """
    name = metric.split("{", 1)[0]
    return words_of(name).rsplit("_", 1)[-1] in COUNTER_WORDS


def _samples(series: MetricSeries) -> tuple[list[int], list[float]]:
    pairs = [(t, v) for t, v in zip(series.timestamps, series.values, strict=False) if not math.isnan(v)]
    return [t for t, _ in pairs], [v for _, v in pairs]


def is_counter(series: MetricSeries) -> bool:
    """A counter by name and by values: it climbs at most samples, falls only at resets, counts more than a few."""
    if not named_counter(series.metric):
        return False
    _, vs = _samples(series)
    if len(vs) < MIN_SAMPLES or (all(v == int(v) for v in vs) and max(vs) - min(vs) <= SMALL_COUNT):
        return False
    pairs = list(zip(vs, vs[1:], strict=False))
    falls = [(a, b) for a, b in pairs if b < a]
    if any(b > RESET_DROP * a for a, b in falls):
        return False  # a level that dipped: a gauge, or a per-period sum
    rises = sum(1 for a, b in pairs if b > a)
    return rises >= CLIMB_SHARE * len(pairs) and len(falls) <= max(2, RESET_SHARE * len(pairs))


def as_rate(series: MetricSeries) -> MetricSeries:
    """The series as its per-second rate when it is a counter (`is_counter`), else unchanged."""
    if not is_counter(series):
        return series
    ts, vs = _samples(series)
    stamps: list[int] = []
    rates: list[float] = []
    for t0, v0, t1, v1 in zip(ts, vs, ts[1:], vs[1:], strict=False):
        if t1 <= t0:
            continue
        stamps.append(t1)
        rates.append((v1 - v0 if v1 >= v0 else v1) / (t1 - t0))  # a fall is a restart from zero
    if rates:
        stamps.insert(0, ts[0])
        rates.insert(0, rates[0])
    return MetricSeries(service=series.service, metric=series.metric, timestamps=tuple(stamps), values=tuple(rates))
