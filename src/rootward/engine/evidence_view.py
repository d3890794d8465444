"""The raw data behind each citation, kept with the investigation for the console.

A metric cite gets its series around the cited window (with the baseline
median), a log cite the lines around it, a change its diff, a runbook cite
its chunk. Stored once at the end of an investigation, so a reader can see
the evidence even when the source is down or the bundle is gone.
"""

from __future__ import annotations

import re
import statistics
from typing import Any

from rootward.domain.investigation import InvestigationResult
from rootward.knowledge.chunking import chunk_text
from rootward.sources.bundle import Bundle

_METRIC = re.compile(r"^metrics\.csv:(?P<svc>[^/]+)/(?P<metric>.+)@(?P<start>\d+)-(?P<end>\d+)$")
LOG_CONTEXT = 3
MAX_POINTS = 240


def _metric(bundle: Bundle, service: str, metric: str, start: int, end: int) -> dict[str, Any] | None:
    series = next((s for s in bundle.metrics or [] if s.service == service and s.metric == metric), None)
    if series is None:
        return None
    span = max(end - start, 60)
    lo, hi = start - 2 * span, end + span
    points = [(t, v) for t, v in zip(series.timestamps, series.values, strict=True) if lo <= t <= hi]
    step = max(1, len(points) // MAX_POINTS)
    points = points[::step]
    before = [v for t, v in zip(series.timestamps, series.values, strict=True) if t < start]
    return {
        "t": [t for t, _ in points],
        "v": [v for _, v in points],
        "window": [start, end],
        "baseline": statistics.median(before) if before else None,
    }


def _log(bundle: Bundle, line: int) -> dict[str, Any] | None:
    records = {r.line: r for r in bundle.logs or []}
    if line not in records:
        return None
    around = [records[n] for n in range(line - LOG_CONTEXT, line + LOG_CONTEXT + 1) if n in records]
    return {
        "line": line,
        "lines": [
            {"line": r.line, "ts": r.ts.isoformat(), "service": r.service, "level": r.level, "message": r.message}
            for r in around
        ],
    }


def evidence_data(result: InvestigationResult, bundle: Bundle) -> dict[str, Any]:
    """`{evidence id: data}` for every evidence item whose source is in the bundle."""
    changes = {c.id: c for c in bundle.changes or []}
    docs = {d.path: d for d in bundle.documents or []}
    out: dict[str, Any] = {}
    for eid, item in result.evidence.items():
        cite = item.cite
        data: dict[str, Any] | None = None
        if (m := _METRIC.match(cite)) is not None:
            data = _metric(bundle, m["svc"], m["metric"], int(m["start"]), int(m["end"]))
        elif cite.startswith("logs.jsonl:") and cite.split(":", 1)[1].isdigit():
            data = _log(bundle, int(cite.split(":", 1)[1]))
        elif cite.startswith("changes.json:") and (change := changes.get(cite.split(":", 1)[1])) is not None:
            data = {
                "summary": change.summary,
                "diff": change.diff,
                "version": change.version,
                "time": change.time.isoformat(),
                "service": change.service,
                "author": change.author,
            }
        elif cite.startswith("knowledge/") and "#" in cite:
            path, _, number = cite[len("knowledge/") :].rpartition("#")
            doc = docs.get(path)
            if doc is not None and number.isdigit():
                chunks = chunk_text(doc.text)
                index = int(number)
                if index < len(chunks):
                    data = {"path": path, "text": chunks[index].text}
        if data is not None:
            out[eid] = data
    return out
