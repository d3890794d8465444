"""live.json: the queries behind a live snapshot's data, and the links they give evidence items."""

from __future__ import annotations

import json
from pathlib import Path

from rootward.bundle.live import LiveRecord, link_evidence, read_live, write_live
from rootward.domain.investigation import EvidenceItem, InvestigationResult
from rootward.domain.live import EntityCoverage, LiveQuery, TemplateMatch


def _record() -> LiveRecord:
    queries = (
        LiveQuery(
            "metrics", "Prometheus", "orders", "PromQL sum(rate(x[5m])) [..]", "request_rate", "http://p/graph?g0"
        ),
        LiveQuery("logs", "Loki", "", 'LogQL {service=~".+"} [..]', url=""),
        LiveQuery("traces", "Jaeger", "orders", "Jaeger /api/traces?service=orders [..]", url="http://j/search?s"),
    )
    coverage = (
        EntityCoverage("orders", "Prometheus", "service", 'job="orders"',
                       (TemplateMatch("http_request_rate", "request_rate", "traffic", "client library", True, True),)),
    )  # fmt: skip
    return LiveRecord(queries, coverage, {"fp1": "http://prom/graph?g0.expr=up", "fp2": "javascript:alert(1)"})


def test_live_record_round_trips(tmp_path: Path) -> None:
    write_live(tmp_path, _record())
    back = read_live(tmp_path)
    assert back == _record()
    assert read_live(tmp_path / "nowhere") is None


def test_evidence_items_get_the_query_and_link_of_their_cite() -> None:
    evidence = {
        "E1": EvidenceItem(kind="metric", cite="metrics.csv:orders/request_rate@1-2"),
        "E2": EvidenceItem(kind="log", cite="logs.jsonl:7"),
        "E3": EvidenceItem(kind="trace", cite="traces.jsonl:web->orders@1-2"),
        "E4": EvidenceItem(kind="alert", cite="alerts.json:fp1"),
        "E5": EvidenceItem(kind="alert", cite="alerts.json:fp2"),
        "E6": EvidenceItem(kind="metric", cite="metrics.csv:db/cpu_usage@1-2"),
    }
    linked = link_evidence(InvestigationResult(bundle="b", status="validated", evidence=evidence), _record()).evidence
    assert linked["E1"].model_extra == {"query": "PromQL sum(rate(x[5m])) [..]", "url": "http://p/graph?g0"}
    assert linked["E2"].model_extra == {"query": 'LogQL {service=~".+"} [..]'}
    assert linked["E3"].model_extra == {"query": "Jaeger /api/traces?service=orders [..]", "url": "http://j/search?s"}
    assert linked["E4"].model_extra == {"url": "http://prom/graph?g0.expr=up"}
    assert linked["E5"].model_extra == {}  # only http(s) links: a generatorURL is whatever the sender wrote
    assert linked["E6"].model_extra == {}


def test_a_kubernetes_log_line_gets_the_api_path_and_a_loki_line_the_logql(tmp_path: Path) -> None:
    lines = [
        {"ts": "2026-03-14T14:31:02Z", "service": "cart", "message": "timeout", "level": "ERROR"},
        {"ts": "2026-03-14T14:31:05Z", "service": "cart", "message": "BackOff: Pod/cart-1: restarting",
         "source": "kubernetes.event", "reason": "BackOff"},
    ]  # fmt: skip
    (tmp_path / "logs.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    k8s = LiveQuery("logs", "Kubernetes", "", "Kubernetes API GET /api/v1/namespaces/shop/events")
    record = LiveRecord((k8s, *_record().queries))
    evidence = {
        "E1": EvidenceItem(kind="log", cite="logs.jsonl:1"),
        "E2": EvidenceItem(kind="log", cite="logs.jsonl:2"),
    }
    result = InvestigationResult(bundle="b", status="validated", evidence=evidence)
    linked = link_evidence(result, record, tmp_path).evidence
    assert linked["E1"].model_extra == {"query": 'LogQL {service=~".+"} [..]'}
    assert linked["E2"].model_extra == {"query": "Kubernetes API GET /api/v1/namespaces/shop/events"}
