"""Data keyed by pod is read under the workload the topology names, and its cites still resolve."""

from __future__ import annotations

import csv
import io
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.context.assemble import assemble_context
from rootward.context.pod_series import alerts_by_workload, records_by_workload, series_by_workload
from rootward.domain.alert import Alert, Severity
from rootward.domain.pod_names import generated_base, spans_by_workload, workload_of
from rootward.domain.telemetry import LogRecord, MetricSeries, Span
from rootward.engine.hypotheses import score_entities
from rootward.sources.bundle import bundle_sources
from tests.conftest import EXAMPLES

EXAMPLE = EXAMPLES / "shop-connection-pool-exhaustion-00"


@pytest.mark.parametrize(
    ("name", "base"),
    [
        ("cartservice-7d9f8b6c4-x2k9p", "cartservice"),  # Deployment
        ("productcatalogservice-668d5f85fb-wckp8", "productcatalogservice"),
        ("node-exporter-x7k2p", "node-exporter"),  # DaemonSet
        ("kafka-0", "kafka"),  # StatefulSet
        ("payments-worker", None),  # a word, not a generated suffix (it has vowels)
        ("api-v2", None),
        ("frontend", None),
    ],
)
def test_only_the_shapes_kubernetes_generates_are_stripped(name: str, base: str | None) -> None:
    assert generated_base(name) == base


def test_a_name_is_mapped_only_onto_an_entity_that_is_known() -> None:
    known = {"cart", "kafka", "kafka-0"}
    assert workload_of("cart-5c8d9b7f6d-q2w4r", known) == "cart"
    assert workload_of("kafka-0", known) == "kafka-0"  # known as itself: never renamed
    assert workload_of("search-k2l4m", known) == "search-k2l4m"  # one generated part, nothing known by that name
    # A scrape target or a cluster DNS name names the service too; an outside host is left alone.
    assert workload_of("cart:7070", known) == "cart"
    assert workload_of("cart.shop.svc.cluster.local:7070", known) == "cart"
    assert workload_of("kafka-1.kafka.shop.svc.cluster.local", known) == "kafka"
    assert workload_of("cart-5c8d9b7f6d-q2w4r:9100", known) == "cart"
    assert workload_of("api.example.com:443", known) == "api.example.com:443"
    # Both generated parts of a Deployment's pod: a workload even where no map names it.
    assert workload_of("search-7c9b8d6f5-k2l4m", known) == "search"


def test_replicas_become_one_series_the_mean_at_each_instant() -> None:
    a = MetricSeries("cart-5c8d9b7f6d-q2w4r", "cpu_usage", (0, 15, 30), (1.0, 2.0, float("nan")))
    b = MetricSeries("cart-5c8d9b7f6d-z9x8v", "cpu_usage", (0, 15, 30), (3.0, 4.0, 5.0))
    other = MetricSeries("db", "cpu_usage", (0, 15), (0.5, 0.5))
    merged = series_by_workload([a, other, b], {"cart", "db"})
    assert [(s.service, s.metric) for s in merged] == [("cart", "cpu_usage"), ("db", "cpu_usage")]
    assert merged[0].timestamps == (0, 15, 30)
    assert merged[0].values == (2.0, 3.0, 5.0)  # a NaN is no reading, not a zero
    assert merged[1] is other


def test_a_pods_log_line_is_its_workloads_and_keeps_the_pod() -> None:
    record = LogRecord(datetime(2026, 1, 1, tzinfo=UTC), "cart-5c8d9b7f6d-q2w4r", "pool exhausted", "ERROR")
    daemon = LogRecord(datetime(2026, 1, 1, tzinfo=UTC), "agent-k2l4m", "scrape failed", "WARN")
    mapped, same = records_by_workload([record, daemon], {"cart"})
    assert (mapped.service, mapped.pod) == ("cart", "cart-5c8d9b7f6d-q2w4r")
    assert same is daemon  # one generated part, and no known "agent"


def _pod_named(bundle: Path, truth: str) -> None:
    """Metrics and logs keyed by pod: two replicas of the culprit (spread around its reading), one of the rest."""
    metrics = bundle / "metrics.csv"
    rows = list(csv.DictReader(io.StringIO(metrics.read_text())))
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["timestamp", "service", "metric", "value"])
    for r in rows:
        service, value = r["service"], float(r["value"])
        if service == truth and r["metric"] not in ("db_connections_max", "restarts_total"):
            w.writerow([r["timestamp"], f"{service}-6d4f8b9c7-k2m5x", r["metric"], repr(value * 0.9)])
            w.writerow([r["timestamp"], f"{service}-6d4f8b9c7-p7q9z", r["metric"], repr(value * 1.1)])
        else:
            w.writerow([r["timestamp"], f"{service}-6d4f8b9c7-k2m5x", r["metric"], r["value"]])
    metrics.write_text(out.getvalue())
    logs = bundle / "logs.jsonl"
    lines = [json.loads(x) for x in logs.read_text().splitlines() if x.strip()]
    logs.write_text("".join(json.dumps({**x, "service": f"{x['service']}-6d4f8b9c7-k2m5x"}) + "\n" for x in lines))
    alerts = bundle / "alerts.json"
    data = json.loads(alerts.read_text())
    for payload in data if isinstance(data, list) else [data]:
        for group in [payload.get("commonLabels", {}), payload.get("groupLabels", {})] + [
            a["labels"] for a in payload["alerts"]
        ]:
            if "service" in group:
                group["service"] = f"{group['service']}-6d4f8b9c7-k2m5x"
    alerts.write_text(json.dumps(data))


def test_a_bundle_keyed_by_pod_is_investigated_as_the_one_keyed_by_service(tmp_path: Path) -> None:
    truth = json.loads((EXAMPLE / "truth.json").read_text())["root_cause"]["entity"]
    as_is = load_bundle(EXAMPLE)
    expected = score_entities(assemble_context(bundle_sources(as_is), as_is.meta))
    copy = tmp_path / "pods"
    shutil.copytree(EXAMPLE, copy)
    _pod_named(copy, truth)
    bundle = load_bundle(copy)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    scores = score_entities(ctx)
    assert scores[0].entity == expected[0].entity == truth
    assert {a.service for a in ctx.anomalies} <= set(ctx.topology.entities)
    assert set(ctx.alerting_services) <= set(ctx.topology.entities)  # the alerts were labelled by pod too
    resolver = BundleCiteResolver(bundle)
    assert [r.cite for r in ctx.evidence_refs() if not resolver.resolves(r.cite)] == []


def test_the_console_shows_a_workloads_series_from_its_pods(tmp_path: Path) -> None:
    from rootward.engine.evidence_view import _metric

    truth = json.loads((EXAMPLE / "truth.json").read_text())["root_cause"]["entity"]
    copy = tmp_path / "pods"
    shutil.copytree(EXAMPLE, copy)
    _pod_named(copy, truth)
    original = next(s for s in load_bundle(EXAMPLE).metrics or [] if s.service == truth)
    start, end = original.timestamps[10], original.timestamps[20]
    shown = _metric(load_bundle(copy), truth, original.metric, start, end)
    assert shown is not None
    assert shown["v"] == pytest.approx(_metric(load_bundle(EXAMPLE), truth, original.metric, start, end)["v"])


TRACED = EXAMPLES / "nezha-ob-2022-08-23-1605-adservice"


def _spans_by_pod(bundle: Path) -> None:
    traces = bundle / "traces.jsonl"
    spans = [json.loads(x) for x in traces.read_text().splitlines() if x.strip()]
    assert all(s.get("pod") for s in spans)
    traces.write_text("".join(json.dumps({**s, "service": s["pod"]}) + "\n" for s in spans))


def test_spans_keyed_by_pod_are_read_as_their_workloads_calls(tmp_path: Path) -> None:
    copies = []
    for name, by_pod in (("services", False), ("pods", True)):
        copy = tmp_path / name
        shutil.copytree(TRACED, copy)
        if by_pod:
            _spans_by_pod(copy)
        copies.append(load_bundle(copy))
    contexts = [assemble_context(bundle_sources(b), b.meta) for b in copies]
    as_service, as_pod = contexts
    assert as_pod.trace_findings and {f.entity for f in as_pod.trace_findings} <= set(as_service.topology.entities)
    assert [(f.kind, f.entity, f.caller) for f in as_pod.trace_findings] == [
        (f.kind, f.entity, f.caller) for f in as_service.trace_findings
    ]
    ranked = [[(e.entity, round(e.score, 6)) for e in score_entities(c)] for c in contexts]
    assert ranked[0] and ranked[1] == ranked[0]
    resolver = BundleCiteResolver(copies[1])
    refs = as_pod.evidence_refs() + [f.evidence for f in as_pod.trace_findings]
    assert any(r.cite.startswith("traces.jsonl:") for r in refs)
    assert [r.cite for r in refs if not resolver.resolves(r.cite)] == []


def test_an_alert_on_a_pod_is_an_alert_on_its_workload() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    on_pod = Alert("f1", "HighLatencyP99", "checkout-6d4f8b9c7-k2m5x", Severity.P1, "firing", at)
    on_service = Alert("f2", "HighErrorRate", "cart", Severity.P2, "firing", at)
    mapped = alerts_by_workload([on_pod, on_service], {"checkout", "cart"})
    assert [a.service for a in mapped] == ["checkout", "cart"]
    assert mapped[0].fingerprint == "f1" and mapped[1] is on_service


def test_series_keyed_by_scrape_target_are_the_services_and_their_cites_resolve(tmp_path: Path) -> None:
    copy = tmp_path / "targets"
    shutil.copytree(EXAMPLE, copy)
    lines = (copy / "metrics.csv").read_text().splitlines()
    rows = [line.split(",") for line in lines[1:]]
    (copy / "metrics.csv").write_text(
        "\n".join([lines[0]] + [f"{t},{svc}:9100,{m},{v}" for t, svc, m, v in rows]) + "\n"
    )
    as_is, targets = load_bundle(EXAMPLE), load_bundle(copy)
    expected = assemble_context(bundle_sources(as_is), as_is.meta)
    ctx = assemble_context(bundle_sources(targets), targets.meta)
    assert ctx.anomalies == expected.anomalies and ctx.anomalies
    resolver = BundleCiteResolver(targets)
    assert [r.cite for r in ctx.evidence_refs() if not resolver.resolves(r.cite)] == []


def test_without_a_topology_file_the_call_graph_of_pod_named_spans_is_of_workloads(tmp_path: Path) -> None:
    contexts = []
    for name, by_pod in (("services", False), ("pods", True)):
        copy = tmp_path / name
        shutil.copytree(TRACED, copy)
        (copy / "topology.yaml").unlink()  # the map is the calls seen in the spans
        if by_pod:
            _spans_by_pod(copy)
        bundle = load_bundle(copy)
        contexts.append(assemble_context(bundle_sources(bundle), bundle.meta))
    as_service, as_pod = contexts
    assert set(as_pod.topology.entities) == set(as_service.topology.entities)
    assert [(e.entity, round(e.score, 6)) for e in score_entities(as_pod)] == [
        (e.entity, round(e.score, 6)) for e in score_entities(as_service)
    ]


def test_a_peer_named_by_its_cluster_address_is_the_service_the_map_knows() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    vendor = Span(
        "t1",
        "s1",
        "checkout",
        at,
        20.0,
        None,
        "ok",
        "client",
        "POST /send",
        attributes={"server.address": "mailer.prod.svc.cluster.local", "server.port": 8080},
    )
    database = Span(
        "t1",
        "s2",
        "checkout",
        at,
        3.0,
        None,
        "ok",
        "client",
        "SELECT",
        attributes={"net.peer.name": "orders-db:5432", "db.system": "postgresql"},
    )
    outside = Span(
        "t1", "s3", "checkout", at, 9.0, None, "ok", "client", "GET", attributes={"server.address": "api.stripe.com"}
    )
    mapped = spans_by_workload([vendor, database, outside], {"checkout", "mailer", "orders-db"})
    assert [s.attributes.get("server.address") or s.attributes.get("net.peer.name") for s in mapped] == [
        "mailer",
        "orders-db",
        "api.stripe.com",
    ]
    assert mapped[0].attributes["server.port"] == 8080 and mapped[2] is outside
