"""Raw observability records as the sources hand them over."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

ChangeKind = Literal["deploy", "config", "infra", "feature_flag"]
SpanStatus = Literal["ok", "error"]
SpanKind = Literal["server", "client", "producer", "consumer", "internal"]
# OpenTelemetry's (then OpenTracing's) names for the service a client span called, first found wins.
PEER_KEYS = ("peer.service", "server.address", "net.peer.name")


@dataclass(frozen=True)
class LogRecord:
    ts: datetime
    service: str
    message: str
    level: str = ""
    host: str = ""
    pod: str = ""
    line: int = 0  # 1-based line in logs.jsonl for bundles; 0 for live sources
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MetricSeries:
    """One (service, metric) series; timestamps are epoch seconds, ascending."""

    service: str
    metric: str
    timestamps: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True)
class Change:
    id: str
    kind: ChangeKind
    service: str
    time: datetime
    version: str = ""
    author: str = ""
    summary: str = ""
    diff: str = ""


@dataclass(frozen=True)
class Span:
    """One span of a distributed trace, OpenTelemetry's model flattened (bundle spec: traces.jsonl).

    A span's caller is the service of its parent span; `status` and `kind` are None
    where the tracer did not say (unknown is not the same as ok).
    """

    trace_id: str
    span_id: str
    service: str
    start: datetime
    duration_ms: float
    parent_id: str | None = None
    status: SpanStatus | None = None
    kind: SpanKind | None = None
    operation: str = ""
    pod: str = ""
    host: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    line: int = 0  # 1-based line in traces.jsonl for bundles; 0 for live sources

    def with_status(self, status: SpanStatus) -> Span:
        """This span with `status` (a shallow copy, as `dataclasses.replace` makes).

        Built from the span's fields as they are rather than through `__init__`, which a frozen
        dataclass runs as one `object.__setattr__` per field: 0.1-0.17 s for the 18,000 spans a
        real bundle holds, all marked at once from their log lines (`context.log_span_status`).
        """
        copy = object.__new__(Span)
        fields = copy.__dict__
        fields.update(self.__dict__)
        fields["status"] = status
        return copy
