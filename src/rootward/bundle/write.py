"""Write domain records as bundle files, the inverse of `validate`.

The live snapshot freezes what the sources said into these files, so a live
investigation reads the same format as an evaluation run, and its citations
resolve against files that stay put after the incident. Each writer takes the
records the loader would give back (`Alert`, `LogRecord`, ...), never a
pre-rendered payload, so nothing is serialised and re-parsed on the way.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import yaml

from rootward.bundle.format import (
    ALERTS_FILE,
    CHANGES_FILE,
    FORMAT,
    GAPS_FILE,
    INCIDENT_FILE,
    KNOWLEDGE_DIR,
    LOGS_FILE,
    METRICS_FILE,
    METRICS_HEADER,
    TOPOLOGY_FILE,
    TRACES_FILE,
)
from rootward.domain.alert import Alert
from rootward.domain.alertmanager import ZERO_TIME_PREFIX
from rootward.domain.incident import IncidentMeta
from rootward.domain.knowledge import Document
from rootward.domain.telemetry import Change, LogRecord, MetricSeries, Span
from rootward.domain.topology import Topology

# Alertmanager's "no end time" value: `endsAt` of an alert that has not resolved.
NO_END_TIME = f"{ZERO_TIME_PREFIX}T00:00:00Z"


def iso_time(value: datetime) -> str:
    """RFC 3339 with a `Z` for UTC; a naive time (SQLite hands those back) is taken as UTC."""
    aware = value if value.tzinfo else value.replace(tzinfo=UTC)
    return aware.isoformat().replace("+00:00", "Z")


def write_incident(out: Path, meta: IncidentMeta) -> None:
    incident = {
        "format": FORMAT,
        "id": meta.id,
        "title": meta.title,
        "fired_at": iso_time(meta.fired_at),
        "window": {"start": iso_time(meta.window_start), "end": iso_time(meta.window_end)},
    }
    (out / INCIDENT_FILE).write_text(yaml.safe_dump(incident, sort_keys=False))


def alertmanager_payload(alerts: Sequence[Alert]) -> dict[str, Any]:
    """The alerts as one Alertmanager v4 payload, the form `alerts.json` stores them in."""
    return {
        "version": "4",
        "status": "firing" if any(a.status == "firing" for a in alerts) else "resolved",
        "receiver": "rootward",
        "groupLabels": {},
        "commonLabels": {},
        "commonAnnotations": {},
        "alerts": [
            {
                "status": a.status,
                "labels": dict(a.labels),
                "annotations": dict(a.annotations),
                "startsAt": iso_time(a.starts_at),
                "endsAt": iso_time(a.ends_at) if a.ends_at else NO_END_TIME,
                "generatorURL": a.generator_url,
                "fingerprint": a.fingerprint,
            }
            for a in alerts
        ],
    }


def write_alerts(out: Path, alerts: Sequence[Alert]) -> None:
    (out / ALERTS_FILE).write_text(json.dumps([alertmanager_payload(alerts)], indent=1, default=str))


def write_topology(out: Path, graph: Topology) -> None:
    entities = {}
    for e in graph.entities.values():
        spec: dict[str, Any] = {"kind": e.kind}
        if e.depends_on:
            spec["depends_on"] = list(e.depends_on)
        if e.runs_on:
            spec["runs_on"] = e.runs_on[0] if len(e.runs_on) == 1 else list(e.runs_on)
        entities[e.name] = spec
    (out / TOPOLOGY_FILE).write_text(yaml.safe_dump({"entities": entities}, sort_keys=True))


def write_logs(out: Path, records: Sequence[LogRecord]) -> None:
    """One JSON object a line, oldest first: a cite `logs.jsonl:<n>` is the n-th record written."""
    with open(out / LOGS_FILE, "w", encoding="utf-8") as fh:
        for r in sorted(records, key=lambda r: r.ts):
            row: dict[str, Any] = {"ts": iso_time(r.ts), "service": r.service, "message": r.message}
            row.update({k: v for k, v in (("level", r.level), ("host", r.host), ("pod", r.pod)) if v})
            row.update({k: v for k, v in r.extra.items() if k not in row})  # e.g. the source: kubernetes.event
            fh.write(json.dumps(row) + "\n")


def write_metrics(out: Path, series: Sequence[MetricSeries]) -> None:
    with open(out / METRICS_FILE, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(METRICS_HEADER)
        for s in series:
            for t, v in zip(s.timestamps, s.values, strict=True):
                writer.writerow([t, s.service, s.metric, repr(float(v))])


def span_row(span: Span) -> dict[str, Any]:
    """One `traces.jsonl` object; unknown status, kind and empty optional fields are left out."""
    row: dict[str, Any] = {
        "trace_id": span.trace_id,
        "span_id": span.span_id,
        "parent_id": span.parent_id,
        "service": span.service,
        "start": iso_time(span.start),
        "duration_ms": span.duration_ms,
    }
    optional = (("operation", span.operation), ("status", span.status), ("kind", span.kind), ("pod", span.pod))
    row.update({k: v for k, v in (*optional, ("host", span.host)) if v})
    if span.attributes:
        row["attributes"] = span.attributes
    return row


def traces_bytes(spans: Sequence[Span]) -> bytes:
    """The `traces.jsonl` text: one span a line, oldest trace first and each trace's spans in start order.

    Whole traces stay together so a reader sees a request's call tree in one
    place; `traces.jsonl:<n>` is the n-th span written. Attribute values JSON
    cannot hold (bytes, sets) are written as their text rather than failing the
    whole snapshot.
    """
    first: dict[str, datetime] = {}
    for span in spans:
        if span.trace_id not in first or span.start < first[span.trace_id]:
            first[span.trace_id] = span.start
    ordered = sorted(spans, key=lambda s: (first[s.trace_id], s.trace_id, s.start, s.span_id))
    return b"".join(orjson.dumps(span_row(s), default=str, option=orjson.OPT_APPEND_NEWLINE) for s in ordered)


def write_traces(out: Path, spans: Sequence[Span]) -> None:
    (out / TRACES_FILE).write_bytes(traces_bytes(spans))


def write_changes(out: Path, changes: Sequence[Change]) -> None:
    rows = [
        {
            "id": c.id,
            "kind": c.kind,
            "service": c.service,
            "time": iso_time(c.time),
            "version": c.version,
            "author": c.author,
            "summary": c.summary,
            "diff": c.diff,
        }
        for c in changes
    ]
    (out / CHANGES_FILE).write_text(json.dumps(rows, indent=1))


def write_documents(out: Path, documents: Sequence[Document]) -> None:
    """`knowledge/<path>`, with the front matter the loader reads back (service, monitors, updated)."""
    for doc in documents:
        front: dict[str, Any] = {}
        if doc.services:
            front["service"] = list(doc.services)
        if doc.monitors:
            front["monitors"] = list(doc.monitors)
        if doc.updated:
            front["updated"] = doc.updated.isoformat()
        path = out / KNOWLEDGE_DIR / doc.path
        path.parent.mkdir(parents=True, exist_ok=True)
        head = f"---\n{yaml.safe_dump(front, sort_keys=True)}---\n" if front else ""
        path.write_text(head + doc.text)


def write_gaps(out: Path, gaps: dict[str, str]) -> None:
    """`gaps.json`: why each missing source is missing (absent when nothing is)."""
    path = out / GAPS_FILE
    if gaps:
        path.write_text(json.dumps(gaps, indent=1, sort_keys=True))
    else:
        path.unlink(missing_ok=True)
