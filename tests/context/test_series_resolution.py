"""One change bar whatever the sampling rate and wherever a series is bounded: fast series as bucket means,
success shares measured from their ceiling."""

from __future__ import annotations

import math
import random

from rootward.context.anomaly import detect_anomalies
from rootward.context.metric_change import change_score
from rootward.context.series_resolution import BUCKET_S, coarsened
from rootward.domain.telemetry import MetricSeries

START = 1_776_090_000
ONSET = START + 60 * 60


def _cpu(step_s: int, noise: float, seed: int = 3) -> MetricSeries:
    """A host CPU at 5 cores with per-sample noise, pinned at its 16-core limit from ONSET."""
    rng = random.Random(seed)
    ts = list(range(START, ONSET + 20 * 60, step_s))
    vs = [16.0 if t >= ONSET else max(0.0, 5.0 * (1 + rng.gauss(0, noise))) for t in ts]
    return MetricSeries("db-host", "cpu_usage", tuple(ts), tuple(vs))


def test_a_noisy_one_second_step_is_an_anomaly_as_it_is_at_fifteen_seconds() -> None:
    raw = _cpu(1, noise=0.65)
    assert len(coarsened(raw).timestamps) == math.ceil(len(raw.timestamps) / BUCKET_S)
    found, _ = detect_anomalies([coarsened(raw)], fired_at=ONSET + 300, end=ONSET + 20 * 60)
    assert [(a.service, a.family, a.direction) for a in found] == [("db-host", "cpu", "up")]
    assert abs(found[0].onset - ONSET) <= BUCKET_S
    unread, _ = detect_anomalies([raw], fired_at=ONSET + 300, end=ONSET + 20 * 60)
    assert unread == [], "per-second noise hides the step when the samples are read one by one"


def test_series_at_fifteen_seconds_or_slower_are_unchanged() -> None:
    for step in (BUCKET_S, 30, 60):
        s = _cpu(step, noise=0.1)
        assert coarsened(s) is s


def test_a_series_shorter_than_the_baseline_keeps_every_sample() -> None:
    """A stack that started minutes ago: 15 s buckets would leave its baseline a handful of samples."""
    ts = tuple(range(START, START + 100, 2))  # 40 s of baseline and a minute of fault, every 2 s
    s = MetricSeries("api", "latency_p99_ms", ts, tuple(100.0 + (t % 7) for t in ts))
    assert coarsened(s) is s


def test_a_sparse_rate_keeps_its_mean() -> None:
    """Errors in one second of ten: a 10 % rate, which a median of each bucket would erase."""
    n = 40 * 60
    ts = tuple(range(START, START + n))
    s = MetricSeries("api", "error_rate", ts, tuple(1.0 if i % 10 == 0 else 0.0 for i in range(n)))
    assert coarsened(s) is s  # 0/1 values: a small integer series keeps its samples
    rate = MetricSeries("api", "error_ratio", ts, tuple(0.3 if i % 10 == 0 else 0.01 for i in range(n)))
    means = coarsened(rate).values
    assert all(abs(v - (0.3 + 9 * 0.01) / 10) < 0.02 for v in means[1:-1])


def test_buckets_are_stamped_with_a_sample_the_bundle_holds_and_gaps_stay_gaps() -> None:
    ts = tuple(t for t in range(START + 7, START + 40 * 60) if not START + 100 <= t < START + 130)
    vs = tuple(float("nan") if START + 210 <= t < START + 225 else 1.5 + (t % 3) for t in ts)
    out = coarsened(MetricSeries("api", "latency_p99_ms", ts, vs))
    assert set(out.timestamps) <= set(ts)
    assert not any(START + 100 <= t < START + 130 for t in out.timestamps)
    nan_buckets = [t for t, v in zip(out.timestamps, out.values, strict=True) if math.isnan(v)]
    assert START % BUCKET_S == 0 and nan_buckets == [START + 210]  # the one bucket with no sample at all


def test_availability_falling_a_few_points_from_near_its_ceiling_is_a_change() -> None:
    """99.9 % -> 93 %: the failing share went from 0.1 to 7 points, whatever 5 % of 99.9 is."""
    rng = random.Random(5)
    ts = tuple(range(START, ONSET + 30 * 60, 300))
    vs = tuple(
        (93.0 if t >= ONSET else 99.9) + rng.uniform(-0.05, 0.05) for t in ts
    )  # five-minute CloudWatch-style samples
    s = MetricSeries("checkout", "Availability", ts, vs)
    found, _ = detect_anomalies([s], fired_at=ONSET + 300, end=ts[-1])
    assert [(a.family, a.direction) for a in found] == [("errors", "down")]
    change = change_score(s, ONSET, ts[-1])
    assert change is not None and change.score >= 20 and change.direction == "down"
