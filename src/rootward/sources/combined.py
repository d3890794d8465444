"""Several sources of one kind read as one: logs from Loki and Kubernetes events, changes from many places,
spans from Jaeger and Tempo.

A part that fails leaves its reason in `gaps` and the others still answer;
only when every part fails is the whole source unavailable. The engine may
read `gaps` after a call to name partial gaps ("no Kubernetes events: ...").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rootward.domain.telemetry import Change, LogRecord, MetricSeries, Span
from rootward.sources.base import ChangeSource, LogSource, MetricSource, SourceUnavailable, TraceSource


class CombinedLogSource:
    def __init__(self, parts: Sequence[LogSource]) -> None:
        self.parts = list(parts)
        self.gaps: list[str] = []

    def query(
        self, service: str | None, start: datetime, end: datetime, filter: str | None = None
    ) -> Sequence[LogRecord]:
        records: list[LogRecord] = []
        gaps: list[str] = []
        answered = False
        for part in self.parts:
            try:
                records += part.query(service, start, end, filter)
                answered = True
            except SourceUnavailable as exc:
                gaps.append(str(exc))
        self.gaps = gaps
        if not answered:
            raise SourceUnavailable("logs", "; ".join(gaps) or "no log source configured")
        return sorted(records, key=lambda r: r.ts)


class CombinedChangeSource:
    def __init__(self, parts: Sequence[ChangeSource]) -> None:
        self.parts = list(parts)
        self.gaps: list[str] = []

    def recent(self, services: Sequence[str] | None, start: datetime, end: datetime) -> Sequence[Change]:
        changes: dict[str, Change] = {}
        gaps: list[str] = []
        answered = False
        for part in self.parts:
            try:
                for change in part.recent(services, start, end):
                    changes.setdefault(change.id, change)
                answered = True
            except SourceUnavailable as exc:
                gaps.append(str(exc))
        self.gaps = gaps
        if not answered:
            raise SourceUnavailable("changes", "; ".join(gaps) or "no change source configured")
        return sorted(changes.values(), key=lambda c: c.time, reverse=True)


class CombinedMetricSource:
    def __init__(self, parts: Sequence[MetricSource]) -> None:
        self.parts = list(parts)
        self.gaps: list[str] = []

    def series(
        self, service: str | None, start: datetime, end: datetime, metric: str | None = None
    ) -> Sequence[MetricSeries]:
        out: list[MetricSeries] = []
        gaps: list[str] = []
        answered = False
        for part in self.parts:
            try:
                out += part.series(service, start, end, metric)
                answered = True
            except SourceUnavailable as exc:
                gaps.append(str(exc))
        self.gaps = gaps
        if not answered:
            raise SourceUnavailable("metrics", "; ".join(gaps) or "no metric source configured")
        return out


class CombinedTraceSource:
    """Spans of several trace backends; a span both report (same trace and span id) is kept once."""

    def __init__(self, parts: Sequence[TraceSource]) -> None:
        self.parts = list(parts)
        self.gaps: list[str] = []

    def spans(self, service: str | None, start: datetime, end: datetime) -> Sequence[Span]:
        spans: dict[tuple[str, str], Span] = {}
        gaps: list[str] = []
        answered = False
        for part in self.parts:
            try:
                for span in part.spans(service, start, end):
                    spans.setdefault((span.trace_id, span.span_id), span)
                answered = True
            except SourceUnavailable as exc:
                gaps.append(str(exc))
        self.gaps = gaps
        if not answered:
            raise SourceUnavailable("traces", "; ".join(gaps) or "no trace source configured")
        return sorted(spans.values(), key=lambda s: s.start)
