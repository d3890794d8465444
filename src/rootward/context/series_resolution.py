"""Series sampled faster than BUCKET_S are read as means over BUCKET_S buckets.

A change's size is judged against the series' own variation (robust z: the
shift in baseline MADs), and that variation depends on how often it is
sampled: a CPU rate read every second swings with every scheduler tick, the
same CPU read every 15 s or every minute is already an average. At one sample
a second, a host whose CPU went from 5 to 16 cores, pinned at its limit,
scored z 3 against per-second noise (below the bar of 4, so no anomaly at
all) while the same move scores in the tens at the 15 s to 1 min intervals
most Prometheus setups scrape at. Averaging into BUCKET_S buckets first makes
one bar mean the same thing at any sampling rate, and costs onset precision
only below BUCKET_S, which nothing downstream resolves anyway (propagation
slack is 60 s).

Means, not medians: a per-second error or drop rate that is 0 most seconds
and 1 in a tenth of them is a 10 % rate, which a median would erase. Small
integer-valued series (lock waits, connections in use: `anomaly.quantum_of`)
keep their samples, because their one-step moves are read as noise by that
quantum and an average would make them look like real changes. Each bucket is
stamped with the time of its first sample, so a cite built from it names
samples the bundle holds.

Buckets trade samples for steadier ones, so only a series that has samples
to spare is bucketed: one that spans at least MIN_SPAN_S (10 min, 40
buckets: a 4-minute "after" window and a baseline of at least as long). A
shorter one (a stack that started a minute ago) keeps every sample, or its
baseline would shrink to a handful of buckets, under what a change point
needs.
"""

from __future__ import annotations

import numpy as np

from rootward.context.anomaly import quantum_of
from rootward.context.median import median
from rootward.domain.telemetry import MetricSeries

BUCKET_S = 15
MIN_SPAN_S = 10 * 60
MIN_SAMPLES = 8


def coarsened(series: MetricSeries, bucket_s: int = BUCKET_S) -> MetricSeries:
    """The series as bucket means when it is sampled faster than `bucket_s`, else unchanged."""
    n = len(series.timestamps)
    if n < MIN_SAMPLES:
        return series
    ts = np.asarray(series.timestamps, dtype=np.int64)
    if int(ts[-1] - ts[0]) < MIN_SPAN_S or float(median(np.diff(ts))) >= bucket_s:
        return series
    vs = np.asarray(series.values, dtype=float)
    finite = vs[~np.isnan(vs)]
    if quantum_of(finite.tolist()) > 0:
        return series
    keys = ts // bucket_s
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return MetricSeries(
        service=series.service,
        metric=series.metric,
        timestamps=tuple(ts[starts].tolist()),
        values=tuple(run_means(vs, starts).tolist()),
    )


def run_means(vs: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The mean of each run of `vs` beginning at an index of `starts`, NaN left out (NaN for a run of NaN)."""
    present = ~np.isnan(vs)
    sums = np.add.reduceat(np.where(present, vs, 0.0), starts)
    counts = np.add.reduceat(present.astype(np.int64), starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(counts > 0, sums / np.maximum(counts, 1), np.nan))
