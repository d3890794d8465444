"""The raw data behind each citation, kept with the investigation for the console.

A metric cite gets its series around the cited window (with the baseline
median), a log cite the lines around it, a change its diff, a runbook cite
its chunk. Stored once at the end of an investigation, so a reader can see
the evidence even when the source is down or the bundle is gone.
"""

from __future__ import annotations

import statistics
from typing import Any

from rootward.bundle.cites import ChangeCite, CiteFormError, KnowledgeCite, LogCite, MetricCite, parse_cite
from rootward.bundle.format import Bundle
from rootward.context.pod_series import series_by_workload
from rootward.domain.investigation import InvestigationResult
from rootward.domain.pod_names import workload_bases
from rootward.knowledge.chunking import chunk_text

LOG_CONTEXT = 3
MAX_POINTS = 240


def _metric(bundle: Bundle, service: str, metric: str, start: int, end: int) -> dict[str, Any] | None:
    series = next((s for s in bundle.metrics or [] if s.service == service and s.metric == metric), None)
    if series is None:  # a workload's series, read from its pods' as the investigation read it
        pods = [s for s in bundle.metrics or [] if s.metric == metric and service in workload_bases(s.service)]
        series = series_by_workload(pods, {service})[0] if pods else None
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
        try:
            cite = parse_cite(item.cite)
        except CiteFormError:
            continue  # a live source's query: there is no bundle data behind it
        data: dict[str, Any] | None = None
        match cite:
            case MetricCite():
                data = _metric(bundle, cite.service, cite.metric, cite.start, cite.end)
            case LogCite():
                data = _log(bundle, cite.line)
            case ChangeCite() if (change := changes.get(cite.id)) is not None:
                data = {
                    "summary": change.summary,
                    "diff": change.diff,
                    "version": change.version,
                    "time": change.time.isoformat(),
                    "service": change.service,
                    "author": change.author,
                }
            case KnowledgeCite() if (doc := docs.get(cite.path)) is not None:
                chunks = chunk_text(doc.text)
                if cite.chunk < len(chunks):
                    data = {"path": cite.path, "text": chunks[cite.chunk].text}
        if data is not None:
            out[eid] = data
    return out
