"""Cite resolution follows the spec's cite table, form by form."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from rootward.bundle.cites import (
    AlertCite,
    BundleCiteResolver,
    CallSpansCite,
    ChangeCite,
    Cite,
    CiteFormError,
    EdgeCite,
    KnowledgeCite,
    LogCite,
    MetricCite,
    ServiceSpansCite,
    SpanCite,
    parse_cite,
)
from rootward.bundle.load import load_bundle
from rootward.domain.evidence import alert_cite, change_cite, knowledge_cite, log_cite, metric_cite, topology_cite
from tests.bundle.tiny import write_bundle

EXAMPLE = "shop-connection-pool-exhaustion-00"


@pytest.fixture
def resolver(example_bundles: list[Path]) -> BundleCiteResolver:
    path = next((p for p in example_bundles if p.name == EXAMPLE), example_bundles[0])
    return BundleCiteResolver(load_bundle(path))


@pytest.mark.parametrize(
    ("cite", "ok"),
    [
        ("logs.jsonl:1", True),
        ("logs.jsonl:1388", True),
        ("logs.jsonl:1389", False),
        ("logs.jsonl:0", False),
        ("logs.jsonl:abc", False),
        ("metrics.csv:frontend/latency_p99_ms@1780657200-1780657200", True),
        ("metrics.csv:frontend/latency_p99_ms@1780657201-1780657229", False),
        ("metrics.csv:frontend/no_such_metric@1780657200-1780660000", False),
        ("metrics.csv:frontend/latency_p99_ms", False),
        ("changes.json:config-7596", True),
        ("changes.json:deploy-0000", False),
        ("alerts.json:93c83bbc448fe8f0", True),
        ("alerts.json:ffffffffffffffff", False),
        ("topology.yaml:payment->payment-db", True),
        ("topology.yaml:payment->node-2", True),
        ("topology.yaml:payment-db->payment", False),
        ("topology.yaml:payment", False),
        ("knowledge/runbooks/payment-latency.md#0", True),
        ("knowledge/runbooks/payment-latency.md", False),
        ("knowledge/runbooks/nope.md#0", False),
        ("grafana:some-panel", False),
    ],
)
def test_cite_forms_resolve_as_the_spec_says(resolver: BundleCiteResolver, cite: str, ok: bool) -> None:
    assert resolver.check(cite).ok is ok, resolver.check(cite).reason


def test_resolved_cites_name_the_entity_they_are_about(resolver: BundleCiteResolver) -> None:
    assert resolver.check("logs.jsonl:5").entities == ("checkout",)
    assert resolver.check("changes.json:config-7596").entities == ("payment",)


def test_cites_into_a_missing_source_do_not_resolve(example_bundles: list[Path], tmp_path: Path) -> None:
    copy = tmp_path / "b"
    shutil.copytree(example_bundles[0], copy)
    (copy / "logs.jsonl").unlink()
    check = BundleCiteResolver(load_bundle(copy)).check("logs.jsonl:1")
    assert not check.ok and "missing" in check.reason


@pytest.mark.parametrize(
    ("written", "parsed"),
    [
        (log_cite(12), LogCite(12)),
        (metric_cite("api", "p99_ms", 1773498540, 1773498900), MetricCite("api", "p99_ms", 1773498540, 1773498900)),
        (change_cite("deploy-7"), ChangeCite("deploy-7")),
        (alert_cite("93c83bbc"), AlertCite("93c83bbc")),
        (topology_cite("api", "db"), EdgeCite("api", "db")),
        (knowledge_cite("runbooks/api.md", 2), KnowledgeCite("runbooks/api.md", 2)),
    ],
)
def test_every_cite_the_engine_writes_parses_back_to_what_it_names(written: str, parsed: Cite) -> None:
    assert parse_cite(written) == parsed


@pytest.mark.parametrize(
    ("text", "expected_form"),
    [
        ("logs.jsonl:²", "logs.jsonl:<line>"),
        ("metrics.csv:api/latency", "metrics.csv:<service>/<metric>@<start>-<end>"),
        ("topology.yaml:api", "topology.yaml:<a>-><b>"),
        ("knowledge/runbooks/api.md", "knowledge/<path>#<chunk>"),
        ("rate(http_requests_total[5m])", "unknown cite form"),
    ],
)
def test_malformed_cite_says_which_form_was_expected(text: str, expected_form: str) -> None:
    with pytest.raises(CiteFormError, match=re.escape(expected_form)):
        parse_cite(text)


def test_verifier_and_evaluator_read_a_cite_the_same_way(tmp_path: Path) -> None:
    resolver = BundleCiteResolver(load_bundle(write_bundle(tmp_path / "b")))
    cites = [" logs.jsonl:1 ", "logs.jsonl:2", "metrics.csv:api/error_rate@1773498600-1773498600",
             "changes.json:d-1", "alerts.json:abc", "topology.yaml:api->db", "knowledge/runbooks/api.md#0",
             "knowledge/runbooks/db.md#0", "changes.json"]  # fmt: skip
    verdicts = {cite: resolver.check(cite).ok for cite in cites}
    assert verdicts == {cite: resolver.resolves(cite) for cite in cites}
    unresolved = [cite for cite, ok in verdicts.items() if not ok]
    assert unresolved == ["logs.jsonl:2", "knowledge/runbooks/db.md#0", "changes.json"]


# The tiny bundle's one trace: api's root span starts at 1773498660 (14:31:00Z), db's child span 50 ms later.
@pytest.mark.parametrize(
    ("cite", "ok"),
    [
        ("traces.jsonl:1", True),
        ("traces.jsonl:2", True),
        ("traces.jsonl:3", False),
        ("traces.jsonl:0", False),
        ("traces.jsonl:api@1773498660-1773498660", True),
        ("traces.jsonl:api@1773498000-1773499000", True),
        ("traces.jsonl:api@1773498661-1773499000", False),
        ("traces.jsonl:db@1773498600-1773498660", False),
        ("traces.jsonl:db@1773498660-1773498661", True),
        ("traces.jsonl:cache@0-9999999999", False),
        ("traces.jsonl:api->db@1773498600-1773498700", True),
        ("traces.jsonl:api->db@1773498700-1773498800", False),
        ("traces.jsonl:db->api@1773498600-1773498700", False),
        ("traces.jsonl:frontend->db@1773498600-1773498700", False),
        ("traces.jsonl:api", False),
    ],
)
def test_trace_cites_resolve_as_the_spec_table_says(tmp_path: Path, cite: str, ok: bool) -> None:
    check = BundleCiteResolver(load_bundle(write_bundle(tmp_path / "b"))).check(cite)
    assert check.ok is ok, check.reason


def test_trace_cites_name_the_services_they_are_about(tmp_path: Path) -> None:
    resolver = BundleCiteResolver(load_bundle(write_bundle(tmp_path / "b")))
    assert resolver.check("traces.jsonl:2").entities == ("db",)
    assert resolver.check("traces.jsonl:api@1773498600-1773498700").entities == ("api",)
    assert resolver.check("traces.jsonl:api->db@1773498600-1773498700").entities == ("api", "db")


def test_a_span_whose_parent_is_not_in_the_bundle_has_no_caller(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (root / "traces.jsonl").write_text(
        '{"trace_id": "t9", "span_id": "c1", "parent_id": "gone", "service": "db",'
        ' "start": "2026-03-14T14:31:00Z", "duration_ms": 3}\n'
    )
    resolver = BundleCiteResolver(load_bundle(root))
    assert resolver.resolves("traces.jsonl:db@1773498660-1773498660")
    assert not resolver.resolves("traces.jsonl:gone->db@1773498660-1773498660")


def test_trace_cites_into_a_bundle_without_traces_say_the_file_is_missing(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (root / "traces.jsonl").unlink()
    resolver = BundleCiteResolver(load_bundle(root))
    for cite in ("traces.jsonl:1", "traces.jsonl:api@0-9999999999", "traces.jsonl:api->db@0-9999999999"):
        check = resolver.check(cite)
        assert not check.ok and check.reason == "traces.jsonl is missing from the bundle"


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("traces.jsonl:17", SpanCite(17)),
        ("traces.jsonl:ts-order-service@1675-1680", ServiceSpansCite("ts-order-service", 1675, 1680)),
        ("traces.jsonl:ts-order->ts-station@1675-1680", CallSpansCite("ts-order", "ts-station", 1675, 1680)),
        ("traces.jsonl:a@b@1-2", ServiceSpansCite("a@b", 1, 2)),
    ],
)
def test_trace_cites_parse_to_what_they_name(text: str, parsed: Cite) -> None:
    assert parse_cite(text) == parsed


@pytest.mark.parametrize(
    "text",
    [
        "traces.jsonl:",
        "traces.jsonl:api",
        "traces.jsonl:api@1700000000",
        "traces.jsonl:api@soon-later",
        "traces.jsonl:api->db",
        "traces.jsonl:->db@1-2",
        "traces.jsonl:api->@1-2",
        "traces.jsonl:a->b->c@1-2",
    ],
)
def test_a_malformed_trace_cite_lists_the_three_trace_forms(text: str) -> None:
    with pytest.raises(CiteFormError, match=re.escape("traces.jsonl:<caller>-><callee>@<start>-<end>")):
        parse_cite(text)
