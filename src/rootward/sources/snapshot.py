"""Freeze what the live sources say about an incident into a bundle directory.

A live investigation runs on a snapshot: the engine reads the same bundle
format it reads in evaluation, every citation resolves against files that
stay put after the incident, and the snapshot is the "what we saw" a user
can attach to a bug report or turn into a golden bundle. A source that
cannot answer leaves its file out (the spec's "source unavailable") and
its reason in `gaps.json`, which the loader reports as the gap.

This module only asks the sources; `rootward.bundle.write` owns the format.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path

from rootward.bundle.format import (
    CHANGES_FILE,
    KNOWLEDGE_DIR,
    LOGS_FILE,
    METRICS_FILE,
    TOPOLOGY_FILE,
    TRACES_FILE,
)
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
from rootward.sources.base import (
    ChangeSource,
    KnowledgeSource,
    LogSource,
    MetricSource,
    SourceSet,
    SourceUnavailable,
    TopologySource,
    TraceSource,
)

CHANGE_LOOKBACK = timedelta(hours=72)


def snapshot_bundle(out: Path, *, meta: IncidentMeta, alerts: Sequence[Alert], sources: SourceSet) -> dict[str, str]:
    """Write the bundle; returns {file: reason} for each source that was unavailable."""
    out.mkdir(parents=True, exist_ok=True)
    gaps: dict[str, str] = {}
    write_incident(out, meta)
    write_alerts(out, alerts)
    start, end, since = meta.window_start, meta.window_end, meta.fired_at - CHANGE_LOOKBACK
    parts: list[tuple[str, Callable[[], None] | None]] = [
        (TOPOLOGY_FILE, partial(_topology, out, sources.topology) if sources.topology is not None else None),
        (LOGS_FILE, partial(_logs, out, sources.logs, start, end) if sources.logs is not None else None),
        (METRICS_FILE, partial(_metrics, out, sources.metrics, start, end) if sources.metrics is not None else None),
        (TRACES_FILE, partial(_traces, out, sources.traces, start, end) if sources.traces is not None else None),
        (CHANGES_FILE, partial(_changes, out, sources.changes, since, end) if sources.changes is not None else None),
        (KNOWLEDGE_DIR, partial(_knowledge, out, sources.knowledge) if sources.knowledge is not None else None),
    ]
    for name, write in parts:
        if write is None:
            gaps[name] = "source not configured"
            continue
        try:
            write()
        except SourceUnavailable as exc:
            gaps[name] = exc.reason
            (out / name).unlink(missing_ok=True)
    write_gaps(out, gaps)
    return gaps


def _topology(out: Path, source: TopologySource) -> None:
    write_topology(out, source.graph())


def _logs(out: Path, source: LogSource, start: datetime, end: datetime) -> None:
    write_logs(out, source.query(None, start, end))


def _metrics(out: Path, source: MetricSource, start: datetime, end: datetime) -> None:
    write_metrics(out, source.series(None, start, end))


def _traces(out: Path, source: TraceSource, start: datetime, end: datetime) -> None:
    write_traces(out, source.spans(None, start, end))


def _changes(out: Path, source: ChangeSource, start: datetime, end: datetime) -> None:
    write_changes(out, source.recent(None, start, end))


def _knowledge(out: Path, source: KnowledgeSource) -> None:
    write_documents(out, source.documents())
