"""Source protocols: what the engine asks of any data connector.

Each protocol has a live implementation (Prometheus, Loki, Kubernetes...) and a
bundle implementation; the engine never knows which it has. A source that
cannot answer raises `SourceUnavailable`, which callers turn into a named gap.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from rootward.domain.alert import Alert
from rootward.domain.knowledge import Document
from rootward.domain.live import EntityMetrics, LiveQuery
from rootward.domain.telemetry import Change, LogRecord, MetricSeries, Span
from rootward.domain.topology import Topology


class SourceUnavailable(Exception):
    """The source could not answer; the message is the gap shown to the user."""

    def __init__(self, source: str, reason: str, *, qualified: bool = False) -> None:
        super().__init__(reason if qualified else f"{source}: {reason}")
        self.source = source
        self.reason = reason
        self.qualified = qualified  # the reason already names the sources that failed (a combined source)

    @property
    def gap(self) -> str:
        """The sentence for a gap: `Loki: query_range cannot connect (connection refused)`."""
        return str(self)


@runtime_checkable
class LogSource(Protocol):
    def query(
        self, service: str | None, start: datetime, end: datetime, filter: str | None = None
    ) -> Sequence[LogRecord]: ...


@runtime_checkable
class MetricSource(Protocol):
    def series(
        self, service: str | None, start: datetime, end: datetime, metric: str | None = None
    ) -> Sequence[MetricSeries]: ...


@runtime_checkable
class CoveredMetricSource(Protocol):
    """A metric source that can say, per entity, what it holds and which templates matched (Prometheus)."""

    def covered_series(
        self, entity: str, kind: str, start: datetime, end: datetime, metric: str | None = None
    ) -> EntityMetrics: ...


@runtime_checkable
class QueriedSource(Protocol):
    """A live source that can say which queries its last call ran, with links to its UI."""

    def live_queries(self, start: datetime, end: datetime) -> Sequence[LiveQuery]: ...


@runtime_checkable
class TraceSource(Protocol):
    """Spans of the traces that touch `service` (every service when None), starting in [start, end]."""

    def spans(self, service: str | None, start: datetime, end: datetime) -> Sequence[Span]: ...


@runtime_checkable
class ChangeSource(Protocol):
    def recent(self, services: Sequence[str] | None, start: datetime, end: datetime) -> Sequence[Change]: ...


@runtime_checkable
class TopologySource(Protocol):
    def graph(self) -> Topology: ...


@runtime_checkable
class KnowledgeSource(Protocol):
    def documents(self) -> Sequence[Document]: ...


@runtime_checkable
class AlertSource(Protocol):
    def alerts(self) -> Sequence[Alert]: ...


class SourceSet:
    """The sources one investigation reads; any of them may be absent (a named gap)."""

    def __init__(
        self,
        *,
        alerts: AlertSource,
        logs: LogSource | None = None,
        metrics: MetricSource | None = None,
        changes: ChangeSource | None = None,
        topology: TopologySource | None = None,
        knowledge: KnowledgeSource | None = None,
        traces: TraceSource | None = None,
    ) -> None:
        self.alerts = alerts
        self.logs = logs
        self.metrics = metrics
        self.changes = changes
        self.topology = topology
        self.knowledge = knowledge
        self.traces = traces
