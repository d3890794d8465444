"""An error series that exists only from its first error reads zero before it, where its entity was watched."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from pathlib import Path

import pytest

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.context.absent_counts import counts_events, with_absent_zeros
from rootward.context.assemble import assemble_context
from rootward.domain.telemetry import MetricSeries
from rootward.sources.bundle import bundle_sources
from tests.context.sim_bundle import metrics_bundle

T0 = 1_770_000_000


def _series(service: str, metric: str, stamps: list[int], values: list[float]) -> MetricSeries:
    return MetricSeries(service, metric, tuple(T0 + t for t in stamps), tuple(values))


def _cpu(service: str = "api", n: int = 10, step: int = 60) -> MetricSeries:
    return _series(service, "cpu_usage", [step * i for i in range(n)], [0.3] * n)


def test_an_error_series_that_starts_at_the_fault_reads_zero_before_it() -> None:
    errors = _series("api", "http_errors_rate", [420, 480, 540], [4.0, 6.0, 5.0])
    filled = {s.metric: s for s in with_absent_zeros([_cpu(), errors])}["http_errors_rate"]
    assert filled.timestamps == tuple(T0 + 60 * i for i in range(10))
    assert filled.values == (0.0,) * 7 + (4.0, 6.0, 5.0)


def test_the_periods_a_sparse_count_left_out_are_zero() -> None:
    # CloudWatch reports HTTPCode_Target_5XX_Count only for periods that counted some.
    errors = _series("alb", "HTTPCode_Target_5XX_Count", [120, 480, 540], [1.0, 30.0, 42.0])
    filled = with_absent_zeros([_cpu("alb"), errors])[1]
    assert filled.values == (0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 30.0, 42.0)


def test_samples_a_little_off_the_entitys_times_are_not_holes() -> None:
    # Another query, stamped a second later: every period has its sample.
    errors = _series("api", "error_rate", [60 * i + 1 for i in range(10)], [0.1] * 10)
    assert with_absent_zeros([_cpu(), errors])[1] == errors


@pytest.mark.parametrize("metric", ["cpu_usage_late", "availability", "SuccessRate", "latency_p99_ms"])
def test_only_counts_of_harmful_events_are_filled(metric: str) -> None:
    late = _series("api", metric, [420, 480, 540], [4.0, 6.0, 5.0])
    assert with_absent_zeros([_cpu(), late])[1] == late


def test_an_entity_with_no_other_series_says_nothing_about_when_it_was_watched() -> None:
    errors = _series("worker", "errors_total", [420, 480, 540], [4.0, 6.0, 5.0])
    assert with_absent_zeros([_cpu("api"), errors])[1] == errors


def test_event_families() -> None:
    assert counts_events('http_requests_errors_total{code="500"}')
    assert counts_events('http_requests_total{code="503"}')  # the label says these requests failed
    assert not counts_events('http_requests_total{code="200"}')
    assert counts_events("kube_pod_container_status_restarts_total")
    assert counts_events("packet_loss_ratio")
    assert counts_events("Throttles")  # Lambda's throttled invocations: a CPU-family word, but counted events
    assert counts_events("ThrottledRequests")
    assert not counts_events("cpu_usage")
    assert not counts_events("Availability")
    assert not counts_events("request_rate")


def _errors_from_first_rise(metrics_csv: str) -> tuple[str, int]:
    """The bundle's metrics with each error series cut to start at its first clear rise (and how many were cut)."""
    by_series: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for r in csv.DictReader(io.StringIO(metrics_csv)):
        by_series[(r["service"], r["metric"])].append((int(float(r["timestamp"])), float(r["value"])))
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["timestamp", "service", "metric", "value"])
    cut = 0
    for (service, metric), points in by_series.items():
        points.sort()
        if metric == "error_rate":
            top = max(v for _, v in points)
            first = next(i for i, (_, v) in enumerate(points) if v >= 0.5 * top)
            cut += first > 0
            points = points[first:]
        w.writerows([t, service, metric, v] for t, v in points)
    return out.getvalue(), cut


def test_an_error_series_born_at_the_fault_is_the_causes_change(tmp_path: Path) -> None:
    # A bad deploy without its logs and traces: the metric signal alone.
    root, cause = metrics_bundle(
        tmp_path, "deploy_regression", "absent-d", without=("logs.jsonl", "traces.jsonl"), moves="error_rate"
    )
    metrics = root / "metrics.csv"
    sparse, cut = _errors_from_first_rise(metrics.read_text())
    assert cut
    metrics.write_text(sparse)
    bundle = load_bundle(root)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    moved = {c.entity: c for c in ctx.metric_changes}
    assert cause in moved and moved[cause].metric == "error_rate" and moved[cause].direction == "up"
    assert ctx.metric_changes[0].entity == cause
    resolver = BundleCiteResolver(bundle)
    assert resolver.check(moved[cause].evidence.cite).ok
