"""A live snapshot freezes what the sources say into a bundle the loader reads back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from rootward.bundle.load import load_bundle
from rootward.domain.telemetry import MetricSeries
from rootward.sources.base import SourceSet, SourceUnavailable
from rootward.sources.bundle import bundle_sources
from rootward.sources.snapshot import snapshot_bundle
from tests.bundle.tiny import write_bundle


class DeadMetrics:
    def series(
        self, service: str | None, start: datetime, end: datetime, metric: str | None = None
    ) -> Sequence[MetricSeries]:
        raise SourceUnavailable("prometheus", "connection refused")


def test_snapshot_holds_what_the_sources_said_and_names_each_gap(tmp_path: Path) -> None:
    original = load_bundle(write_bundle(tmp_path / "live"))
    live = bundle_sources(original)
    sources = SourceSet(
        alerts=live.alerts, logs=None, metrics=DeadMetrics(), changes=live.changes, topology=live.topology,
        knowledge=live.knowledge,
    )  # fmt: skip
    gaps = snapshot_bundle(tmp_path / "snap", meta=original.meta, alerts=original.alerts, sources=sources)
    snap = load_bundle(tmp_path / "snap")
    assert gaps == {"logs.jsonl": "source not configured", "metrics.csv": "connection refused"}
    assert snap.gaps() == ["logs.jsonl: source not configured", "metrics.csv: connection refused"]
    assert snap.alerts == original.alerts
    assert snap.changes == original.changes
    assert snap.topology == original.topology
    assert [d.path for d in snap.documents or []] == ["runbooks/api.md"]
