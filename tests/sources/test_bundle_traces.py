"""A bundle's traces.jsonl read through the TraceSource protocol, as a tracing backend's trace search answers."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.context.topology import subgraph
from rootward.sources.base import SourceUnavailable, TraceSource
from rootward.sources.bundle import bundle_sources
from tests.bundle.tiny import write_bundle

WINDOW = (datetime(2026, 3, 14, 14, 0, tzinfo=UTC), datetime(2026, 3, 14, 15, 0, tzinfo=UTC))


def _span(trace: str, span: str, service: str, start: str, parent: str | None = None) -> str:
    return json.dumps(
        {"trace_id": trace, "span_id": span, "parent_id": parent, "service": service, "start": start, "duration_ms": 5}
    )


def _source(tmp_path: Path) -> TraceSource:
    root = write_bundle(tmp_path / "b")
    spans = [
        _span("t1", "a", "api", "2026-03-14T14:10:00Z"),
        _span("t1", "b", "db", "2026-03-14T14:10:00.020Z", "a"),
        _span("t2", "c", "web", "2026-03-14T14:40:00Z"),
        _span("t2", "d", "cache", "2026-03-14T14:40:00.010Z", "c"),
        _span("t3", "e", "api", "2026-03-14T13:00:00Z"),  # before the window
    ]
    (root / "traces.jsonl").write_text("\n".join(spans) + "\n")
    traces = bundle_sources(load_bundle(root)).traces
    assert traces is not None
    return traces


def test_the_bundle_source_set_has_a_trace_source(tmp_path: Path) -> None:
    traces = bundle_sources(load_bundle(write_bundle(tmp_path / "b"))).traces
    assert isinstance(traces, TraceSource)
    assert [s.service for s in traces.spans(None, *WINDOW)] == ["api", "db"]


def test_a_service_gets_the_whole_traces_it_takes_part_in(tmp_path: Path) -> None:
    spans = _source(tmp_path).spans("db", *WINDOW)
    assert [(s.trace_id, s.service, s.line) for s in spans] == [("t1", "api", 1), ("t1", "db", 2)]


def test_no_service_means_every_span_in_the_window(tmp_path: Path) -> None:
    assert [s.span_id for s in _source(tmp_path).spans(None, *WINDOW)] == ["a", "b", "c", "d"]


def test_spans_outside_the_window_are_left_out(tmp_path: Path) -> None:
    late = (datetime(2026, 3, 14, 14, 30, tzinfo=UTC), WINDOW[1])
    source = _source(tmp_path)
    assert [s.span_id for s in source.spans("api", *WINDOW)] == ["a", "b"]
    assert source.spans("api", *late) == []
    assert [s.span_id for s in source.spans("web", *late)] == ["c", "d"]


def test_a_bundle_without_traces_reports_the_source_unavailable(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (root / "traces.jsonl").unlink()
    traces = bundle_sources(load_bundle(root)).traces
    assert traces is not None
    with pytest.raises(SourceUnavailable) as info:
        traces.spans(None, *WINDOW)
    assert (info.value.source, info.value.reason) == ("traces.jsonl", "source missing from bundle")


def _with_spans(tmp_path: Path, *, topology: str | None) -> Path:
    root = write_bundle(tmp_path / "b")
    spans = [
        _span("t1", "a", "web", "2026-03-14T14:10:00Z"),
        _span("t1", "b", "api", "2026-03-14T14:10:00.010Z", "a"),
        _span("t1", "c", "db", "2026-03-14T14:10:00.020Z", "b"),
        _span("t2", "d", "web", "2026-03-14T14:40:00Z"),
        _span("t2", "e", "api", "2026-03-14T14:40:00.010Z", "d"),
    ]
    (root / "traces.jsonl").write_text("\n".join(spans) + "\n")
    if topology is None:
        (root / "topology.yaml").unlink()
    else:
        (root / "topology.yaml").write_text(topology)
    return root


def test_without_a_topology_file_the_calls_in_the_spans_are_the_map_and_cite_the_spans(tmp_path: Path) -> None:
    bundle = load_bundle(_with_spans(tmp_path, topology=None))
    graph = bundle_sources(bundle).topology.graph()  # type: ignore[union-attr]
    assert sorted((a, b) for a, b, _ in graph.edges()) == [("api", "db"), ("web", "api")]
    # api answered web at 14:10:00.010 and 14:40:00.010: whole seconds that hold both
    assert graph.edge_cites[("web", "api")] == "traces.jsonl:web->api@1773497400-1773499201"
    resolver = BundleCiteResolver(bundle)
    assert all(resolver.resolves(c) for c in graph.edge_cites.values())


def test_declared_edges_keep_the_file_cite_and_only_observed_ones_cite_the_spans(tmp_path: Path) -> None:
    bundle = load_bundle(_with_spans(tmp_path, topology="entities:\n  web: {kind: service, depends_on: [api]}\n"))
    graph = bundle_sources(bundle).topology.graph()  # type: ignore[union-attr]
    assert graph.has_edge("web", "api") and graph.has_edge("api", "db")
    assert set(graph.edge_cites) == {("api", "db")}
    sub = subgraph(graph, ["web"])
    cites = {(e.source, e.target): e.evidence.cite for e in sub.edges}
    assert cites[("web", "api")] == "topology.yaml:web->api"
    assert cites[("api", "db")].startswith("traces.jsonl:api->db@")


def test_neither_file_nor_spans_is_no_topology(tmp_path: Path) -> None:
    root = _with_spans(tmp_path, topology=None)
    (root / "traces.jsonl").unlink()
    with pytest.raises(SourceUnavailable):
        bundle_sources(load_bundle(root)).topology.graph()  # type: ignore[union-attr]


def _on_hosts(tmp_path: Path, *, topology: str | None) -> Path:
    root = _with_spans(tmp_path, topology=topology)
    placed = {"web": "node-1", "api": "node-2", "db": "db"}  # a tracer that puts the service there names nothing
    lines = []
    for line in (root / "traces.jsonl").read_text().splitlines():
        span = json.loads(line)
        lines.append(json.dumps({**span, "host": placed[span["service"]]}))
    (root / "traces.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_without_a_topology_file_the_hosts_spans_were_recorded_on_are_where_services_run(tmp_path: Path) -> None:
    bundle = load_bundle(_on_hosts(tmp_path, topology=None))
    graph = bundle_sources(bundle).topology.graph()  # type: ignore[union-attr]
    assert graph.entities["web"].runs_on == ("node-1",) and graph.entities["api"].runs_on == ("node-2",)
    assert graph.entities["node-2"].kind == "host" and graph.entities["db"].runs_on == ()
    assert graph.edge_cites[("api", "node-2")] == "traces.jsonl:api@1773497400-1773499201"
    resolver = BundleCiteResolver(bundle)
    assert all(resolver.resolves(c) for c in graph.edge_cites.values())
    assert "node-1" in subgraph(graph, ["web"]).entities


def test_a_service_the_file_places_keeps_its_declared_host(tmp_path: Path) -> None:
    declared = "entities:\n  web: {kind: service, depends_on: [api], runs_on: [vm-a]}\n  vm-a: {kind: host}\n"
    graph = bundle_sources(load_bundle(_on_hosts(tmp_path, topology=declared))).topology.graph()  # type: ignore[union-attr]
    assert graph.entities["web"].runs_on == ("vm-a",)
    assert "node-1" not in graph.entities
    assert graph.entities["api"].runs_on == ("node-2",)  # the file does not say where api runs
