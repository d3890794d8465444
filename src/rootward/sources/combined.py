"""Several sources of one kind read as one: logs from Loki and Kubernetes events, changes from many places,
spans from Jaeger and Tempo.

A part that fails leaves its reason in `gaps` and the others still answer;
only when every part fails is the whole source unavailable. The engine may
read `gaps` after a call to name partial gaps ("no Kubernetes events: ...").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Generic, TypeVar

from rootward.domain.live import LiveQuery
from rootward.domain.telemetry import Change, LogRecord, MetricSeries, Span
from rootward.sources.base import (
    ChangeSource,
    LogSource,
    MetricSource,
    QueriedSource,
    SourceUnavailable,
    TraceSource,
)

P = TypeVar("P")
R = TypeVar("R")


class _Combined(Generic[P]):
    """The parts of one kind, asked in order; `gaps` holds the failed parts' reasons after each call."""

    source = ""  # the SourceUnavailable name when every part failed: logs, changes, metrics, traces
    noun = ""  # as in "no log source configured"

    def __init__(self, parts: Sequence[P]) -> None:
        self.parts = list(parts)
        self.gaps: list[str] = []

    def live_queries(self, start: datetime, end: datetime) -> list[LiveQuery]:
        """The queries the parts that keep them ran (Loki's LogQL, Jaeger's searches...)."""
        return [q for part in self.parts if isinstance(part, QueriedSource) for q in part.live_queries(start, end)]

    def _gather(self, ask: Callable[[P], Sequence[R]]) -> list[R]:
        answers: list[R] = []
        gaps: list[str] = []
        answered = False
        for part in self.parts:
            try:
                answers += ask(part)
                answered = True
            except SourceUnavailable as exc:
                gaps.append(str(exc))
        self.gaps = gaps
        if not answered:
            if not gaps:
                raise SourceUnavailable(self.source, f"no {self.noun} source configured")
            raise SourceUnavailable(self.source, "; ".join(gaps), qualified=True)
        return answers


class CombinedLogSource(_Combined[LogSource]):
    source, noun = "logs", "log"

    def query(
        self, service: str | None, start: datetime, end: datetime, filter: str | None = None
    ) -> Sequence[LogRecord]:
        records = self._gather(lambda part: part.query(service, start, end, filter))
        return sorted(records, key=lambda r: r.ts)


class CombinedChangeSource(_Combined[ChangeSource]):
    source, noun = "changes", "change"

    def recent(self, services: Sequence[str] | None, start: datetime, end: datetime) -> Sequence[Change]:
        found = self._gather(lambda part: part.recent(services, start, end))
        changes: dict[str, Change] = {}
        for change in found:
            changes.setdefault(change.id, change)
        return sorted(changes.values(), key=lambda c: c.time, reverse=True)


class CombinedMetricSource(_Combined[MetricSource]):
    source, noun = "metrics", "metric"

    def series(
        self, service: str | None, start: datetime, end: datetime, metric: str | None = None
    ) -> Sequence[MetricSeries]:
        return self._gather(lambda part: part.series(service, start, end, metric))


class CombinedTraceSource(_Combined[TraceSource]):
    """Spans of several trace backends; a span both report (same trace and span id) is kept once."""

    source, noun = "traces", "trace"

    def spans(self, service: str | None, start: datetime, end: datetime) -> Sequence[Span]:
        found = self._gather(lambda part: part.spans(service, start, end))
        spans: dict[tuple[str, str], Span] = {}
        for span in found:
            spans.setdefault((span.trace_id, span.span_id), span)
        return sorted(spans.values(), key=lambda s: s.start)
