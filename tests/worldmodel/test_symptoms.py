from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from rootward.domain.telemetry import MetricSeries, Span
from rootward.worldmodel.symptoms import earliest, metric_symptoms, series_onset, trace_symptoms

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)
START = int(T0.timestamp())


def _series(service: str, metric: str, shape: dict[int, float], noise: float = 1.0, seed: int = 1) -> MetricSeries:
    """Samples every 30 s from 40 min before T0 to 20 min after; `shape` adds a value from each offset on."""
    rng = random.Random(seed)
    ts = list(range(START - 2400, START + 1200, 30))
    values = []
    for t in ts:
        extra = max((v for at, v in shape.items() if t - START >= at), default=0.0)
        values.append(100.0 + rng.gauss(0, noise) + extra)
    return MetricSeries(service, metric, tuple(ts), tuple(values))


def test_a_sustained_step_is_found_where_it_starts() -> None:
    assert series_onset(_series("api", "latency_p99_ms", {300: 80.0}), START) == START + 300


def test_a_single_spike_or_noise_is_no_symptom() -> None:
    assert series_onset(_series("api", "latency_p99_ms", {}, noise=3.0), START) is None
    spiky = _series("api", "latency_p99_ms", {})
    values = list(spiky.values)
    values[90] += 500.0  # one sample
    assert series_onset(MetricSeries("api", "latency_p99_ms", spiky.timestamps, tuple(values)), START) is None


def test_small_integer_series_stepping_within_their_range_is_no_symptom() -> None:
    ts = tuple(range(START - 2400, START + 1200, 30))
    locks = tuple(float(i % 3) for i in range(len(ts)))  # 0, 1, 2 all day
    assert series_onset(MetricSeries("db", "lock_waits", ts, locks), START) is None


def test_a_counter_is_judged_by_its_increase() -> None:
    ts = tuple(range(START - 2400, START + 1200, 30))
    total, values = 0.0, []
    for t in ts:
        total += 5.0 if t < START + 120 else 50.0
        values.append(total)
    assert series_onset(MetricSeries("api", "requests_failed_total", ts, tuple(values)), START) == START + 120


def test_metric_symptoms_keep_the_earliest_series_per_entity() -> None:
    found = metric_symptoms(
        [
            _series("api", "latency_p99_ms", {240: 80.0}),
            _series("api", "error_rate", {120: 50.0}, seed=2),
            _series("db", "cpu_usage", {}, seed=3),
        ],
        T0,
    )
    assert [(s.entity, s.signal, s.starts_at) for s in found] == [("api", "error_rate", T0 + timedelta(seconds=120))]


def _calls(service: str, start: int, end: int, *, bad_from: int | None, seed: int = 4) -> list[Span]:
    rng = random.Random(seed)
    out = []
    for i, t in enumerate(range(start, end, 5)):
        bad = bad_from is not None and t >= bad_from
        status = "error" if bad and rng.random() < 0.5 else "ok"
        duration = rng.uniform(20, 30) * (4 if bad else 1)
        at = datetime.fromtimestamp(t, tz=UTC)
        out.append(Span(f"t{i}", f"s{i}", service, at, duration, "p", status, "server"))  # type: ignore[arg-type]
    return out


def test_trace_symptoms_find_when_the_calls_into_a_service_went_wrong() -> None:
    spans = _calls("api", START - 1800, START + 900, bad_from=START + 240)
    spans += _calls("web", START - 1800, START + 900, bad_from=None, seed=5)
    found = trace_symptoms(spans, T0)
    assert [(s.entity, s.source) for s in found] == [("api", "traces")]
    assert found[0].starts_at == T0 + timedelta(seconds=240)


def test_earliest_merges_sources_per_entity() -> None:
    spans = _calls("api", START - 1800, START + 900, bad_from=START + 60)
    merged = earliest(metric_symptoms([_series("api", "latency_p99_ms", {300: 80.0})], T0), trace_symptoms(spans, T0))
    assert len(merged) == 1 and merged[0].source == "traces"
