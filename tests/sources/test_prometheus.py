"""The Prometheus connector against a real Prometheus fed with backfilled history."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from rootward.sources.base import SourceUnavailable
from rootward.sources.prometheus import (
    PrometheusSettings,
    PrometheusSource,
    series_name,
    topology_of_targets,
)
from rootward.sources.prometheus_entities import render
from tests.sources.local_http import free_port

pytestmark = [
    pytest.mark.integration,
    pytest.mark.xdist_group("prometheus"),
    pytest.mark.skipif(shutil.which("prometheus") is None, reason="Debian package prometheus not installed"),
]

STEP = 30
HISTORY_S = 3 * 3600


@dataclass(frozen=True)
class LivePrometheus:
    url: str
    start: datetime  # first backfilled sample
    end: datetime  # last backfilled sample


def openmetrics_history(start: int) -> str:
    """Three hours of two services: payment's 5xx rate jumps in the last hour; checkout is calm."""
    lines = ["# HELP http_requests Requests served.", "# TYPE http_requests counter"]
    for service in ("payment", "checkout"):
        ok = errors = 0.0
        for i in range(0, HISTORY_S, STEP):
            ok += 10 * STEP
            errors += (5 if (service == "payment" and i >= 2 * 3600) else 0.1) * STEP
            lines.append(f'http_requests_total{{service="{service}",status="200"}} {ok} {start + i}')
            lines.append(f'http_requests_total{{service="{service}",status="500"}} {errors} {start + i}')
    lines += ["# HELP db_connections_in_use Pool connections in use.", "# TYPE db_connections_in_use gauge"]
    for i in range(0, HISTORY_S, STEP):
        lines.append(f'db_connections_in_use{{service="payment"}} {10 + i // 600} {start + i}')
    lines += ["# HELP container_memory_working_set_bytes Memory.", "# TYPE container_memory_working_set_bytes gauge"]
    for pod in ("payment-a", "payment-b"):
        for i in range(0, HISTORY_S, STEP):
            lines.append(f'container_memory_working_set_bytes{{service="payment",pod="{pod}"}} {1e8 + i} {start + i}')
    lines += ["# HELP http_request_duration_seconds Latency.", "# TYPE http_request_duration_seconds histogram"]
    bounds = ("0.05", "0.1", "0.25", "0.5", "1", "+Inf")
    slow = {"0.05": 0.0, "0.1": 0.0, "0.25": 0.5, "0.5": 0.7, "1": 1.0, "+Inf": 1.0}  # share at or under bound
    fast = {"0.05": 0.9, "0.1": 1.0, "0.25": 1.0, "0.5": 1.0, "1": 1.0, "+Inf": 1.0}
    counts = dict.fromkeys(bounds, 0.0)
    total = 0.0
    for i in range(0, HISTORY_S, STEP):
        shares = slow if i >= 2 * 3600 else fast
        for bound in bounds:
            counts[bound] += 10 * STEP * shares[bound]
            lines.append(
                f'http_request_duration_seconds_bucket{{service="payment",le="{bound}"}} {counts[bound]} {start + i}'
            )
        total += 10 * STEP
        lines.append(f'http_request_duration_seconds_count{{service="payment"}} {total} {start + i}')
        lines.append(f'http_request_duration_seconds_sum{{service="payment"}} {total * 0.05} {start + i}')
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LivePrometheus]:
    root = tmp_path_factory.mktemp("prometheus")
    start = (int(time.time()) - HISTORY_S - 1800) // STEP * STEP
    (root / "history.om").write_text(openmetrics_history(start))
    data = root / "data"
    subprocess.run(
        ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(root / "history.om"), str(data)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    port = free_port()
    (root / "prometheus.yml").write_text(
        "global:\n  scrape_interval: 1h\n"
        "scrape_configs:\n  - job_name: self\n    static_configs:\n"
        f"      - targets: ['127.0.0.1:{port}']\n        labels: {{service: metrics-store, node: node-7}}\n"
    )
    log = (root / "prometheus.log").open("w")
    proc = subprocess.Popen(
        [
            "prometheus",
            f"--config.file={root / 'prometheus.yml'}",
            f"--storage.tsdb.path={data}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--storage.tsdb.retention.time=30d",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/-/ready", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"prometheus did not start: {Path(log.name).read_text()[-2000:]}")
            time.sleep(0.2)
        yield LivePrometheus(url, _at(start), _at(start + HISTORY_S - STEP))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _at(epoch: int) -> datetime:
    return datetime.fromtimestamp(epoch, tz=UTC)


def _source(prom: LivePrometheus, **overrides: object) -> PrometheusSource:
    return PrometheusSource(PrometheusSettings(base_url=prom.url, timeout_s=5, **overrides))  # type: ignore[arg-type]


def test_templated_metric_returns_one_series_with_its_promql_and_range(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    start, end = prometheus.end - timedelta(minutes=30), prometheus.end
    cited = source.series_with_invocations("payment", start, end, "request_rate")
    assert len(cited) == 1
    series = cited[0].series
    assert (series.service, series.metric) == ("payment", "request_rate")
    assert len(series.timestamps) >= 55
    assert all(abs(v - 15.0) < 0.5 for v in series.values)  # 10/s ok + 5/s errors
    assert 'http_requests_total{service="payment"}' in cited[0].invocation
    assert start.strftime("%Y-%m-%dT%H:%M") in cited[0].invocation
    assert source.last_invocations == (cited[0].invocation,)


def test_error_rate_template_shows_the_payment_surge(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    start, end = prometheus.start + timedelta(minutes=90), prometheus.end
    (series,) = source.series("payment", start, end, "error_rate")
    before = [v for t, v in zip(series.timestamps, series.values, strict=True) if t < series.timestamps[-1] - 4000]
    after = series.values[-20:]
    assert max(before) < 0.02 < 0.3 < min(after)


def test_all_metrics_of_a_service_include_discovered_raw_series(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    start, end = prometheus.end - timedelta(minutes=20), prometheus.end
    names = {s.metric for s in source.series("payment", start, end)}
    # Templates give the words; the raw gauge nobody mapped is discovered under its own name.
    assert {"request_rate", "error_rate", "latency_p99_ms", "memory_bytes", "db_connections_in_use"} <= names
    # Raw series a matched template already reads are not read twice.
    assert not any(n.startswith(("http_requests_total", "container_memory", "http_request_duration")) for n in names)


def test_covered_series_says_which_templates_matched_and_which_signals_are_missing(
    prometheus: LivePrometheus,
) -> None:
    source = _source(prometheus)
    start, end = prometheus.end - timedelta(minutes=20), prometheus.end
    checkout = source.covered_series("checkout", "service", start, end).coverage
    assert checkout.selector == 'service="checkout"'
    assert {t.name for t in checkout.matched} == {"http_request_rate", "http_error_rate"}
    assert checkout.missing_signals == ("latency", "saturation")
    assert checkout.summary().startswith(f"2 of {len(checkout.templates)} templates matched for checkout")
    assert checkout.summary().endswith("no latency series, no saturation series")
    unknown = source.covered_series("orders", "service", start, end).coverage
    assert unknown.series == 0 and unknown.selector == ""
    assert unknown.gap == "no metrics for orders: Prometheus answered but no series names it"


def test_service_named_by_a_later_label_is_found_by_that_label(prometheus: LivePrometheus) -> None:
    source = _source(prometheus, service_labels=["app", "service"])
    found = source.covered_series("payment", "service", prometheus.end - timedelta(minutes=20), prometheus.end)
    assert found.coverage.selector == 'service="payment"'
    assert any("sum by (service)" in q for q in found.invocations)


def test_series_carry_a_link_to_the_prometheus_graph(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    (cited,) = source.series_with_invocations(
        "payment", prometheus.end - timedelta(minutes=30), prometheus.end, "request_rate"
    )
    assert cited.url.startswith(prometheus.url + "/graph?g0.expr=sum%20by%20%28service%29")
    assert httpx.get(cited.url, timeout=5, follow_redirects=True).status_code == 200  # Debian: the classic UI


def test_latency_template_reads_the_histogram_in_milliseconds(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    (series,) = source.series("payment", prometheus.start + timedelta(minutes=90), prometheus.end, "latency_p99_ms")
    assert max(series.values[:60]) < 100 < 900 < min(series.values[-20:]) <= 1000


def test_service_without_a_metric_yields_no_series_not_an_empty_one(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    assert source.series("checkout", prometheus.start, prometheus.end, "latency_p99_ms") == []


def test_service_none_asks_about_every_value_of_the_service_labels(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    start, end = prometheus.end - timedelta(minutes=10), prometheus.end
    series = source.series(None, start, end)
    assert {(s.service, s.metric) for s in series} >= {
        ("payment", "request_rate"),
        ("checkout", "request_rate"),
        ("payment", "error_rate"),
        ("payment", "latency_p99_ms"),
        ("payment", "memory_bytes"),
    }
    assert any('service="checkout"' in q for q in source.last_invocations)


def test_user_template_runs_for_each_service_label_value(prometheus: LivePrometheus) -> None:
    source = _source(prometheus, metrics={"requests": "sum(rate(http_requests_total{{selector}}[5m]))"})
    start, end = prometheus.end - timedelta(minutes=10), prometheus.end
    assert {s.service for s in source.series(None, start, end, "requests")} == {"payment", "checkout"}
    assert len(source.last_invocations) == 2


def test_unmapped_metric_word_is_a_gap_not_a_crash(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    with pytest.raises(SourceUnavailable, match="no PromQL template for metric 'p99 latency'"):
        source.series("payment", prometheus.start, prometheus.end, "p99 latency")


def test_target_labels_give_services_running_on_nodes(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    deadline = time.monotonic() + 20  # Prometheus applies discovered targets about 5 s after start
    topology = source.graph()
    while "metrics-store" not in topology.entities and time.monotonic() < deadline:
        time.sleep(0.5)
        topology = source.graph()
    assert topology.entities["metrics-store"].runs_on == ("node-7",)
    assert topology.entities["node-7"].kind == "host"


def test_bad_promql_is_a_readable_template_error_not_a_dead_source(prometheus: LivePrometheus) -> None:
    source = _source(prometheus, metrics={"broken": "sum(rate(http_requests_total{{selector}}[5m]"})
    found = source.covered_series("payment", "service", prometheus.start, prometheus.end)
    (broken,) = [t for t in found.coverage.templates if t.name == "broken"]
    assert broken.matched and not broken.returned and "HTTP 400" in broken.error
    assert any(s.series.metric == "request_rate" for s in found.series)  # the other templates still answer


# --- pure parts, no server --------------------------------------------------


def test_render_fills_selector_by_and_escaped_service() -> None:
    assert render("up{{selector}}", 'app="a\\"b"', "app", 'a"b') == 'up{app="a\\"b"}'
    assert render('x{job="{service}"}', "", "service", 'pa"y') == 'x{job="pa\\"y"}'
    assert render("sum by ({by}) (up{{selector}})", 'app="x"', "app", "x") == 'sum by (app) (up{app="x"})'


def test_series_name_keeps_distinguishing_labels_only_when_several() -> None:
    labels = {"__name__": "m", "service": "p", "pod": "a"}
    assert series_name("m", labels, 1, "service") == "m"
    assert series_name("m", labels, 2, "service") == 'm{pod="a"}'


def test_targets_without_host_label_use_instance_host() -> None:
    body = {
        "status": "success",
        "data": {"activeTargets": [{"labels": {"job": "api", "instance": "10.0.0.5:9100"}}]},
    }
    topology = topology_of_targets(body, ["service"], ["node", "instance"])
    assert topology.entities["api"].runs_on == ("10.0.0.5",)


def test_every_default_template_is_promql_this_prometheus_accepts(prometheus: LivePrometheus) -> None:
    from rootward.sources.metric_templates import DEFAULT_TEMPLATES

    for template in DEFAULT_TEMPLATES:
        expr = render(template.promql, 'service="payment"', "service", "payment")
        response = httpx.get(f"{prometheus.url}/api/v1/query", params={"query": expr}, timeout=5)
        assert response.status_code == 200, (template.name, expr, response.text)


def test_snapshot_asks_each_alerting_entity_and_names_the_one_prometheus_knows_nothing_about(
    prometheus: LivePrometheus, tmp_path: Path
) -> None:
    from rootward.bundle.live import read_live
    from rootward.bundle.load import load_bundle
    from rootward.domain.alert import Alert, Severity
    from rootward.domain.incident import IncidentMeta
    from rootward.engine.entry_point import investigate_bundle
    from rootward.sources.base import SourceSet
    from rootward.sources.live import StaticAlerts
    from rootward.sources.snapshot import snapshot_bundle

    fired = prometheus.end - timedelta(minutes=5)
    alerts = [
        Alert(f"fp-{s}", "HighErrorRate", s, Severity.P1, "firing", fired, generator_url="http://prom/graph?g0.expr=x")
        for s in ("payment", "orders")
    ]
    meta = IncidentMeta("inc-live", "HighErrorRate", fired, fired - timedelta(minutes=60), prometheus.end)
    sources = SourceSet(alerts=StaticAlerts(alerts), metrics=_source(prometheus))
    gaps = snapshot_bundle(tmp_path / "snap", meta=meta, alerts=alerts, sources=sources)
    assert gaps["metrics.csv:orders"] == "no metrics for orders: Prometheus answered but no series names it"
    assert "metrics.csv:payment" not in gaps  # traffic, errors, latency and saturation all came back
    bundle = load_bundle(tmp_path / "snap")
    assert {s.service for s in bundle.metrics or []} == {"payment"}
    live = read_live(tmp_path / "snap")
    assert live is not None
    query = live.metric_query("payment", "error_rate")
    assert query is not None
    assert query.query.startswith('PromQL (sum by (service) (rate(http_requests_total{service="pay')
    assert query.url.startswith(prometheus.url + "/graph?")
    assert live.alert_links == {"fp-payment": "http://prom/graph?g0.expr=x", "fp-orders": "http://prom/graph?g0.expr=x"}
    (orders,) = [c for c in live.coverage if c.entity == "orders"]
    assert orders.series == 0 and orders.notes
    # The engine reports the snapshot's sentence as it was written.
    result = investigate_bundle(tmp_path / "snap")
    assert "no metrics for orders: Prometheus answered but no series names it" in result.gaps
    assert "no logs: no log source configured" in result.gaps
