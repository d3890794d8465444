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
    assert snap.topology == original.topology
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
