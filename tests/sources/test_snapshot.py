"""A live snapshot freezes what the sources say into a bundle the loader reads back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.domain.telemetry import MetricSeries, Span
from rootward.sources.base import SourceSet, SourceUnavailable
from rootward.sources.bundle import bundle_sources
from rootward.sources.snapshot import snapshot_bundle
from tests.bundle.tiny import write_bundle


class DeadMetrics:
    def series(
        self, service: str | None, start: datetime, end: datetime, metric: str | None = None
    ) -> Sequence[MetricSeries]:
        raise SourceUnavailable("prometheus", "connection refused")


class DeadTraces:
    def spans(self, service: str | None, start: datetime, end: datetime) -> Sequence[Span]:
        raise SourceUnavailable("jaeger", "timed out after 10s")


def test_snapshot_holds_what_the_sources_said_and_names_each_gap(tmp_path: Path) -> None:
    original = load_bundle(write_bundle(tmp_path / "live"))
    live = bundle_sources(original)
    sources = SourceSet(
        alerts=live.alerts, logs=None, metrics=DeadMetrics(), changes=live.changes, topology=live.topology,
        knowledge=live.knowledge, traces=live.traces,
    )  # fmt: skip
    gaps = snapshot_bundle(tmp_path / "snap", meta=original.meta, alerts=original.alerts, sources=sources)
    snap = load_bundle(tmp_path / "snap")
    assert gaps == {"logs.jsonl": "no log source configured", "metrics.csv": "prometheus: connection refused"}
    assert snap.gaps() == ["logs.jsonl: no log source configured", "metrics.csv: prometheus: connection refused"]
    assert snap.alerts == original.alerts
    assert snap.changes == original.changes
    assert snap.spans == original.spans
    # The topology source's map: the file with the calls seen in the spans below it (db emits spans: a service).
    assert snap.topology == live.topology.graph()
    assert snap.topology is not None and snap.topology.entities["db"].kind == "service"
    assert [d.path for d in snap.documents or []] == ["runbooks/api.md"]


def test_snapshot_writes_the_trace_sources_spans_and_their_cites_resolve(tmp_path: Path) -> None:
    original = load_bundle(write_bundle(tmp_path / "live"))
    live = bundle_sources(original)
    sources = SourceSet(alerts=live.alerts, traces=live.traces)
    snapshot_bundle(tmp_path / "snap", meta=original.meta, alerts=original.alerts, sources=sources)
    snap = load_bundle(tmp_path / "snap")
    assert "traces.jsonl" not in snap.missing
    assert [(s.line, s.service, s.parent_id, s.status) for s in snap.spans or ()] == [
        (1, "api", None, "ok"),
        (2, "db", "a1", "error"),
    ]
    resolver = BundleCiteResolver(snap)
    assert resolver.resolves("traces.jsonl:2")
    assert resolver.resolves("traces.jsonl:api->db@1773498660-1773498661")


def test_an_unavailable_trace_source_leaves_traces_out_with_its_reason(tmp_path: Path) -> None:
    original = load_bundle(write_bundle(tmp_path / "live"))
    sources = SourceSet(alerts=bundle_sources(original).alerts, traces=DeadTraces())
    gaps = snapshot_bundle(tmp_path / "snap", meta=original.meta, alerts=original.alerts, sources=sources)
    snap = load_bundle(tmp_path / "snap")
    assert gaps["traces.jsonl"] == "jaeger: timed out after 10s"
    assert not (tmp_path / "snap" / "traces.jsonl").exists()
    assert snap.spans is None
    assert "traces.jsonl: jaeger: timed out after 10s" in snap.gaps()


def test_no_trace_source_configured_is_a_named_gap(tmp_path: Path) -> None:
    original = load_bundle(write_bundle(tmp_path / "live"))
    sources = SourceSet(alerts=bundle_sources(original).alerts)
    gaps = snapshot_bundle(tmp_path / "snap", meta=original.meta, alerts=original.alerts, sources=sources)
    assert gaps["traces.jsonl"] == "no trace source configured"
    assert "traces.jsonl: no trace source configured" in load_bundle(tmp_path / "snap").gaps()


def test_a_dead_loki_reaches_the_rca_as_the_snapshot_said_it(tmp_path: Path) -> None:
    from rootward.engine.entry_point import investigate_bundle
    from rootward.sources.loki import LokiSettings, LokiSource
    from tests.sources.local_http import free_port

    original = load_bundle(write_bundle(tmp_path / "live"))
    loki = LokiSource(LokiSettings(base_url=f"http://127.0.0.1:{free_port()}", timeout_s=2))
    sources = SourceSet(alerts=bundle_sources(original).alerts, logs=loki)
    gaps = snapshot_bundle(tmp_path / "snap", meta=original.meta, alerts=original.alerts, sources=sources)
    assert gaps["logs.jsonl"] == "Loki: query_range cannot connect (connection refused)"
    result = investigate_bundle(tmp_path / "snap")
    assert "no logs: Loki: query_range cannot connect (connection refused)" in result.gaps


def test_a_combined_source_with_one_dead_part_keeps_its_file_and_names_the_dead_part(tmp_path: Path) -> None:
    from rootward.sources.combined import CombinedTraceSource

    original = load_bundle(write_bundle(tmp_path / "live"))
    live = bundle_sources(original)
    traces = CombinedTraceSource([DeadTraces(), live.traces])
    sources = SourceSet(alerts=live.alerts, traces=traces)
    gaps = snapshot_bundle(tmp_path / "snap", meta=original.meta, alerts=original.alerts, sources=sources)
    assert gaps["traces.jsonl"] == "some trace sources failed: jaeger: timed out after 10s"
    snap = load_bundle(tmp_path / "snap")
    assert snap.spans and "traces.jsonl" not in snap.missing
    assert snap.partial_gaps() == ["some trace sources failed: jaeger: timed out after 10s"]
