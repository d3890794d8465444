"""Freeze what the live sources say about an incident into a bundle directory.

A live investigation runs on a snapshot: the engine reads the same bundle
format it reads in evaluation, every citation resolves against files that
stay put after the incident, and the snapshot is the "what we saw" a user
can attach to a bug report or turn into a golden bundle. A source that
cannot answer leaves its file out (the spec's "source unavailable") and
its reason in `gaps.json`, which the loader reports as the gap.

Metrics are asked per entity (`snapshot_scope.py`: the alerting entities and
what they depend on) where the source can say what it holds about one
(`CoveredMetricSource`): which templates matched is kept in `live.json`, and
an alerting entity with no series, or without an expected signal, gets its
own line in `gaps.json` (`metrics.csv:<entity>`). A combined source whose
parts partly failed keeps its file and the failed parts' reasons under the
file's name. Every query that ran is kept in `live.json` with a link to the
source's UI.

This module only asks the sources; `rootward.bundle` owns the format.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from rootward.bundle.format import (
    CHANGES_FILE,
    KNOWLEDGE_DIR,
    LOGS_FILE,
    METRICS_FILE,
    TOPOLOGY_FILE,
    TRACES_FILE,
)
from rootward.bundle.live import LiveRecord, write_live
from rootward.bundle.write import (
    write_alerts,
    write_changes,
    write_documents,
    write_gaps,
    write_incident,
    write_logs,
    write_metrics,
    write_topology,
    write_traces,
)
from rootward.domain.alert import Alert
from rootward.domain.incident import IncidentMeta
from rootward.domain.live import EntityCoverage, EntityMetrics, LiveQuery
from rootward.domain.telemetry import MetricSeries
from rootward.domain.topology import Topology
from rootward.sources.base import (
    CoveredMetricSource,
    MetricSource,
    QueriedSource,
    SourceSet,
    SourceUnavailable,
)
from rootward.sources.snapshot_scope import MAX_ENTITIES, ScopedEntity, entity_kind, snapshot_entities

CHANGE_LOOKBACK = timedelta(hours=72)
_NOUNS = {
    TOPOLOGY_FILE: "topology",
    LOGS_FILE: "log",
    METRICS_FILE: "metric",
    TRACES_FILE: "trace",
    CHANGES_FILE: "change",
    KNOWLEDGE_DIR: "knowledge",
}


@dataclass
class _Snapshot:
    out: Path
    meta: IncidentMeta
    alerts: Sequence[Alert]
    sources: SourceSet
    max_entities: int
    gaps: dict[str, str] = field(default_factory=dict)
    queries: list[LiveQuery] = field(default_factory=list)
    coverage: list[EntityCoverage] = field(default_factory=list)
    topology: Topology | None = None


def snapshot_bundle(
    out: Path,
    *,
    meta: IncidentMeta,
    alerts: Sequence[Alert],
    sources: SourceSet,
    max_entities: int = MAX_ENTITIES,
) -> dict[str, str]:
    """Write the bundle and `live.json`; returns the gaps (`{file or file:entity: reason}`)."""
    out.mkdir(parents=True, exist_ok=True)
    snap = _Snapshot(out, meta, alerts, sources, max_entities)
    write_incident(out, meta)
    write_alerts(out, alerts)
    start, end, since = meta.window_start, meta.window_end, meta.fired_at - CHANGE_LOOKBACK
    parts: list[tuple[str, object, Callable[[], None]]] = [
        (TOPOLOGY_FILE, sources.topology, lambda: _topology(snap, start, end)),
        (LOGS_FILE, sources.logs, lambda: _logs(snap, start, end)),
        (METRICS_FILE, sources.metrics, lambda: _metrics(snap, start, end)),
        (TRACES_FILE, sources.traces, lambda: _traces(snap, start, end)),
        (CHANGES_FILE, sources.changes, lambda: _changes(snap, since, end)),
        (KNOWLEDGE_DIR, sources.knowledge, lambda: _knowledge(snap)),
    ]
    for name, source, write in parts:
        if source is None:
            snap.gaps[name] = f"no {_NOUNS[name]} source configured"
            continue
        try:
            write()
        except SourceUnavailable as exc:
            snap.gaps[name] = exc.gap
            (out / name).unlink(missing_ok=True)
            continue
        partial = getattr(source, "gaps", None)  # a combined source whose parts partly failed
        if partial:
            snap.gaps[name] = f"some {_NOUNS[name]} sources failed: " + "; ".join(partial)
    write_gaps(out, snap.gaps)
    links = {a.fingerprint: a.generator_url for a in alerts if a.generator_url}
    write_live(out, LiveRecord(tuple(snap.queries), tuple(snap.coverage), links))
    return snap.gaps


def _queried(snap: _Snapshot, source: object, start: datetime, end: datetime) -> None:
    if isinstance(source, QueriedSource):
        snap.queries += source.live_queries(start, end)


def _topology(snap: _Snapshot, start: datetime, end: datetime) -> None:
    assert snap.sources.topology is not None
    snap.topology = snap.sources.topology.graph()
    write_topology(snap.out, snap.topology)
    _queried(snap, snap.sources.topology, start, end)


def _logs(snap: _Snapshot, start: datetime, end: datetime) -> None:
    assert snap.sources.logs is not None
    write_logs(snap.out, snap.sources.logs.query(None, start, end))
    _queried(snap, snap.sources.logs, start, end)


def _traces(snap: _Snapshot, start: datetime, end: datetime) -> None:
    assert snap.sources.traces is not None
    write_traces(snap.out, snap.sources.traces.spans(None, start, end))
    _queried(snap, snap.sources.traces, start, end)


def _changes(snap: _Snapshot, start: datetime, end: datetime) -> None:
    assert snap.sources.changes is not None
    write_changes(snap.out, snap.sources.changes.recent(None, start, end))
    _queried(snap, snap.sources.changes, start, end)


def _knowledge(snap: _Snapshot) -> None:
    assert snap.sources.knowledge is not None
    write_documents(snap.out, snap.sources.knowledge.documents())


def _metrics(snap: _Snapshot, start: datetime, end: datetime) -> None:
    source: MetricSource | None = snap.sources.metrics
    assert source is not None
    if not isinstance(source, CoveredMetricSource):
        write_metrics(snap.out, source.series(None, start, end))
        return
    alerting = [a.service for a in snap.alerts if a.status == "firing"] or [a.service for a in snap.alerts]
    series: list[MetricSeries] = []
    silent: list[str] = []
    for entity in snapshot_entities(alerting, snap.topology, snap.max_entities):
        found = _entity_metrics(source, entity, start, end)
        snap.coverage.append(found.coverage)
        for cited in found.series:
            series.append(cited.series)
            snap.queries.append(
                LiveQuery(
                    "metrics", found.coverage.source, entity.name, cited.invocation, cited.series.metric, cited.url
                )
            )
        if entity.alerting:
            note = found.coverage.gap or (found.coverage.summary() if found.coverage.missing_signals else None)
            if note:
                snap.gaps[f"{METRICS_FILE}:{entity.name}"] = note
        elif not found.series:
            silent.append(entity.name)
    if silent:
        snap.gaps[f"{METRICS_FILE}:*"] = f"no metrics for {len(silent)} other entities in scope: " + ", ".join(silent)
    write_metrics(snap.out, series)


def _entity_metrics(source: CoveredMetricSource, entity: ScopedEntity, start: datetime, end: datetime) -> EntityMetrics:
    """The entity as the topology says; an alerting entity nothing names as a service may be a host."""
    kind = entity_kind(entity.kind)
    found = source.covered_series(entity.name, kind, start, end)
    if not found.coverage.selector and not entity.kind and kind == "service":
        as_host = source.covered_series(entity.name, "host", start, end)
        if as_host.coverage.selector:
            return as_host
    return found
