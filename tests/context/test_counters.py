"""Cumulative counters are read as rates: a CPU counter that got steeper is a CPU that rose."""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from pathlib import Path

import pytest

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.context.assemble import assemble_context
from rootward.context.counters import as_rate, is_counter, named_counter
from rootward.domain.telemetry import MetricSeries
from rootward.engine.hypotheses import score_entities
from rootward.sources.bundle import bundle_sources
from tests.context.sim_bundle import metrics_bundle

T0 = 1_770_000_000


def _series(metric: str, values: list[float], step: int = 15) -> MetricSeries:
    return MetricSeries("api", metric, tuple(T0 + step * i for i in range(len(values))), tuple(values))


def _cumulative(rates: list[float], step: int = 15, start: float = 5_000.0) -> list[float]:
    out, acc = [start], start
    for r in rates[1:]:
        acc += r * step
        out.append(acc)
    return out


def test_a_counter_that_got_steeper_becomes_a_rate_that_stepped_up() -> None:
    rates = [0.5] * 20 + [2.0] * 10
    counter = _series("container_cpu_usage_seconds_total", _cumulative(rates))
    rate = as_rate(counter)
    assert rate.timestamps == counter.timestamps  # every sample kept, so every cite still resolves
    assert rate.values == pytest.approx(rates)
    assert rate.metric == counter.metric


def test_a_reset_is_a_restart_from_zero_not_a_negative_rate() -> None:
    values = [1000.0, 1150.0, 1300.0, 1450.0, 30.0, 180.0, 330.0]
    rate = as_rate(_series("http_requests_total", values))
    assert rate.values == pytest.approx([10.0, 10.0, 10.0, 10.0, 2.0, 10.0, 10.0])
    assert min(rate.values) >= 0


def test_missing_samples_are_skipped() -> None:
    values = [0.0, 30.0, math.nan, 90.0, 120.0, 150.0]
    rate = as_rate(_series("bytes_sent_total", values))
    assert rate.timestamps == (T0, T0 + 15, T0 + 45, T0 + 60, T0 + 75)
    assert rate.values == pytest.approx([2.0, 2.0, 2.0, 2.0, 2.0])


@pytest.mark.parametrize(
    ("metric", "values"),
    [
        # Named like a counter, but it rises and falls: a gauge (a queue's pending count).
        ("pending_count", [50.0, 80.0, 40.0, 90.0, 30.0, 70.0, 20.0, 60.0]),
        # A CloudWatch `Count` is a per-period sum: it goes up and down with traffic.
        ("Count", [1200.0, 1350.0, 1100.0, 1400.0, 1250.0, 1300.0, 1150.0]),
        # Never falls, but the name says it is a level: a disk filling up is a ramp, not a rate.
        ("disk_used_ratio", [0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80]),
        # A handful of restarts: each step is an event, read as a step.
        ("restarts_total", [0.0, 0.0, 1.0, 1.0, 2.0, 3.0, 3.0, 4.0]),
        # A per-period sum that mostly rose with traffic, dipping twice by a few percent: no reset.
        ("Invocations_Sum", [900.0, 950.0, 1000.0, 980.0, 1100.0, 1200.0, 1150.0, 1300.0, 1400.0]),
        # A per-period error sum, zero until a fault and rising with it: never falls, but no counter.
        ("Errors_Sum", [0.0] * 12 + [40.0, 90.0, 160.0, 250.0, 300.0]),
        # A counter that never moved has no rate to show.
        ("errors_total", [7.0] * 8),
    ],
)
def test_what_is_not_a_counter_is_left_as_it_is(metric: str, values: list[float]) -> None:
    series = _series(metric, values)
    assert not is_counter(series)
    assert as_rate(series) is series


def test_counter_names_follow_the_prometheus_convention_in_any_case() -> None:
    assert named_counter("container_cpu_usage_seconds_total")
    assert named_counter("http_server_requests_seconds_count")
    assert named_counter("RequestDurationSum")
    assert named_counter('http_requests_total{code="500",method="GET"}')
    assert not named_counter("total_memory_bytes")
    assert not named_counter("cpu_usage")


def _cpu_as_counter(metrics_csv: str) -> str:
    """The bundle's metrics with every cpu_usage series turned into a cumulative CPU-seconds counter."""
    rows = list(csv.DictReader(io.StringIO(metrics_csv)))
    by_series: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for r in rows:
        by_series[(r["service"], r["metric"])].append((int(float(r["timestamp"])), float(r["value"])))
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["timestamp", "service", "metric", "value"])
    for (service, metric), points in by_series.items():
        points.sort()
        if metric != "cpu_usage":
            w.writerows([t, service, metric, v] for t, v in points)
            continue
        acc, prev = 100.0, points[0][0]
        for t, v in points:
            acc += v * (t - prev)
            prev = t
            w.writerow([t, service, "container_cpu_usage_seconds_total", repr(acc)])
    return out.getvalue()


def test_a_cpu_counter_in_a_bundle_is_read_as_the_cpu_it_counts(tmp_path: Path) -> None:
    root, cause = metrics_bundle(tmp_path, "cpu_saturation", "counters")
    metrics = root / "metrics.csv"
    metrics.write_text(_cpu_as_counter(metrics.read_text()))
    bundle = load_bundle(root)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    cpu = [a for a in ctx.anomalies if a.service == cause and a.metric == "container_cpu_usage_seconds_total"]
    # A CPU pinned from the onset: a step up in cores, not the slow climb of CPU-seconds since boot.
    assert cpu and cpu[0].family == "cpu" and cpu[0].direction == "up" and cpu[0].shape == "step"
    assert cpu[0].peak < 100.0  # the counter started at 100 CPU-seconds: what moved is a rate
    assert score_entities(ctx)[0].entity == cause
    resolver = BundleCiteResolver(bundle)
    assert [r.cite for r in ctx.evidence_refs() if not resolver.resolves(r.cite)] == []
