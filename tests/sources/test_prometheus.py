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
    render_template,
    series_name,
    topology_of_targets,
)
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
    assert {"request_rate", "error_rate", "db_connections_in_use"} <= names
    # Two pods answer the memory template's raw discovery; each keeps its pod label.
    assert 'container_memory_working_set_bytes{pod="payment-a"}' in names
    assert "memory_bytes" in names  # the template sums both pods
    assert 'http_requests_total{status="500"}' in names  # counters are discovered as rates
    assert "latency_p99_ms" in names
    assert not any(n.startswith("http_request_duration_seconds_bucket") for n in names)  # buckets stay raw-only


def test_latency_template_reads_the_histogram_in_milliseconds(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    (series,) = source.series("payment", prometheus.start + timedelta(minutes=90), prometheus.end, "latency_p99_ms")
    assert max(series.values[:60]) < 100 < 900 < min(series.values[-20:]) <= 1000


def test_service_without_a_metric_yields_no_series_not_an_empty_one(prometheus: LivePrometheus) -> None:
    source = _source(prometheus)
    assert source.series("checkout", prometheus.start, prometheus.end, "latency_p99_ms") == []


def test_service_none_asks_once_per_template_grouped_by_service(prometheus: LivePrometheus) -> None:
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
    assert len(source.last_invocations) == len(source.settings.metrics)  # no per-service fan-out
    assert 'service=~".+"' in source.last_invocations[0]


def test_template_without_by_runs_once_per_service_label_value(prometheus: LivePrometheus) -> None:
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


def test_bad_promql_is_a_readable_gap(prometheus: LivePrometheus) -> None:
    source = _source(prometheus, metrics={"broken": "sum(rate(x{selector}[5m]"})
    with pytest.raises(SourceUnavailable) as info:
        source.series("payment", prometheus.start, prometheus.end, "broken")
    assert "HTTP 400" in str(info.value) and "Prometheus" in str(info.value)


# --- pure parts, no server --------------------------------------------------


def test_render_template_fills_selector_and_escapes_quotes() -> None:
    assert render_template("up{{selector}}", "app", 'a"b') == 'up{app="a\\"b"}'
    assert render_template('x{job="{service}"}', "service", "pay") == 'x{job="pay"}'
    assert render_template("sum by ({by}) (up{{selector}})", "app", None) == 'sum by (app) (up{app=~".+"})'


def test_series_name_keeps_distinguishing_labels_only_when_several() -> None:
    labels = {"__name__": "m", "service": "p", "pod": "a"}
    assert series_name("m", labels, 1, "service") == "m"
    assert series_name("m", labels, 2, "service") == 'm{pod="a"}'


def test_targets_without_host_label_use_instance_host() -> None:
    body = {
        "status": "success",
        "data": {"activeTargets": [{"labels": {"job": "api", "instance": "10.0.0.5:9100"}}]},
    }
    topology = topology_of_targets(body, "service", ["node", "instance"])
    assert topology.entities["api"].runs_on == ("10.0.0.5",)
