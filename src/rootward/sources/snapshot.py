"""Freeze what the live sources say about an incident into a bundle directory.

A live investigation runs on a snapshot: the engine reads the same bundle
format it reads in evaluation, every citation resolves against files that
stay put after the incident, and the snapshot is the "what we saw" a user
can attach to a bug report or turn into a golden bundle. A source that
cannot answer leaves its file out (the spec's "source unavailable") and
its reason in `gaps.json`, which the loader reports as the gap.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml

from rootward.domain.incident import IncidentMeta
from rootward.sources.base import SourceSet, SourceUnavailable

CHANGE_LOOKBACK = timedelta(hours=72)


def _iso(value: Any) -> str:
    return value.isoformat().replace("+00:00", "Z")


def snapshot_bundle(
    out: Path,
    *,
    meta: IncidentMeta,
    alert_payloads: Sequence[dict[str, Any]],
    sources: SourceSet,
) -> dict[str, str]:
    """Write the bundle; returns {file: reason} for each source that was unavailable."""
    out.mkdir(parents=True, exist_ok=True)
    gaps: dict[str, str] = {}
    incident = {
        "format": "rootward-bundle/v1",
        "id": meta.id,
        "title": meta.title,
        "fired_at": _iso(meta.fired_at),
        "window": {"start": _iso(meta.window_start), "end": _iso(meta.window_end)},
    }
    (out / "incident.yaml").write_text(yaml.safe_dump(incident, sort_keys=False))
    (out / "alerts.json").write_text(json.dumps(list(alert_payloads), indent=1, default=str))

    def attempt(name: str, write: Any, source: object | None) -> None:
        if source is None:
            gaps[name] = "source not configured"
            return
        try:
            write()
        except SourceUnavailable as exc:
            gaps[name] = exc.reason
            (out / name).unlink(missing_ok=True)

    def topology() -> None:
        assert sources.topology is not None
        graph = sources.topology.graph()
        entities = {}
        for e in graph.entities.values():
            spec: dict[str, Any] = {"kind": e.kind}
            if e.depends_on:
                spec["depends_on"] = list(e.depends_on)
            if e.runs_on:
                spec["runs_on"] = e.runs_on[0] if len(e.runs_on) == 1 else list(e.runs_on)
            entities[e.name] = spec
        (out / "topology.yaml").write_text(yaml.safe_dump({"entities": entities}, sort_keys=True))

    def logs() -> None:
        assert sources.logs is not None
        records = sorted(sources.logs.query(None, meta.window_start, meta.window_end), key=lambda r: r.ts)
        with open(out / "logs.jsonl", "w", encoding="utf-8") as fh:
            for r in records:
                row: dict[str, Any] = {"ts": _iso(r.ts), "service": r.service, "message": r.message}
                row.update({k: v for k, v in (("level", r.level), ("host", r.host), ("pod", r.pod)) if v})
                fh.write(json.dumps(row) + "\n")

    def metrics() -> None:
        assert sources.metrics is not None
        series = sources.metrics.series(None, meta.window_start, meta.window_end)
        with open(out / "metrics.csv", "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["timestamp", "service", "metric", "value"])
            for s in series:
                for t, v in zip(s.timestamps, s.values, strict=True):
                    writer.writerow([t, s.service, s.metric, repr(float(v))])

    def changes() -> None:
        assert sources.changes is not None
        items = sources.changes.recent(None, meta.fired_at - CHANGE_LOOKBACK, meta.window_end)
        rows = [
            {
                "id": c.id,
                "kind": c.kind,
                "service": c.service,
                "time": _iso(c.time),
                "version": c.version,
                "author": c.author,
                "summary": c.summary,
                "diff": c.diff,
            }
            for c in items
        ]
        (out / "changes.json").write_text(json.dumps(rows, indent=1))

    def knowledge() -> None:
        assert sources.knowledge is not None
        for doc in sources.knowledge.documents():
            front: dict[str, Any] = {}
            if doc.services:
                front["service"] = list(doc.services)
            if doc.monitors:
                front["monitors"] = list(doc.monitors)
            if doc.updated:
                front["updated"] = doc.updated.isoformat()
            path = out / "knowledge" / doc.path
            path.parent.mkdir(parents=True, exist_ok=True)
            head = f"---\n{yaml.safe_dump(front, sort_keys=True)}---\n" if front else ""
            path.write_text(head + doc.text)

    attempt("topology.yaml", topology, sources.topology)
    attempt("logs.jsonl", logs, sources.logs)
    attempt("metrics.csv", metrics, sources.metrics)
    attempt("changes.json", changes, sources.changes)
    attempt("knowledge", knowledge, sources.knowledge)
    write_gaps(out, gaps)
    return gaps


def write_gaps(out: Path, gaps: dict[str, str]) -> None:
    """`gaps.json`: why each missing source is missing (absent when nothing is)."""
    path = out / "gaps.json"
    if gaps:
        path.write_text(json.dumps(gaps, indent=1, sort_keys=True))
    else:
        path.unlink(missing_ok=True)
