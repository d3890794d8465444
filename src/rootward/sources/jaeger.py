"""Jaeger's query API as a `TraceSource`, and its dependency graph as a `TopologySource`.

`spans(service, start, end)` is `GET /api/traces?service=&start=&end=&limit=`
(microseconds); with no service it asks for each service `/api/services`
lists, up to `max_services`, since Jaeger only searches one service at a
time. Every span of each returned trace is mapped to a `Span` (ids as OpenTelemetry's
zero-padded hex, as Jaeger may print 64-bit or zero-stripped ids): its service
from the trace's `processes`, its parent from the `CHILD_OF` reference,
status from the `error` or `otel.status_code` tag (else the HTTP or gRPC code:
`domain.span_status`), kind from `span.kind`,
pod and host from the process tags. `graph()` is `/api/dependencies` over the
last `dependencies_lookback_s`: the caller → callee pairs Jaeger aggregated.
The requests are kept in `last_invocations` for citation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import Field, SecretStr

from rootward.domain.live import LiveQuery
from rootward.domain.span_status import attribute_status
from rootward.domain.telemetry import Span
from rootward.domain.topology import Topology
from rootward.sources.base import SourceUnavailable
from rootward.sources.call_graph import topology_from_edges
from rootward.sources.connector import Connector
from rootward.sources.httpapi import Params, authenticated_api
from rootward.sources.links import jaeger_search_url
from rootward.sources.resilience import ConnectorSettings, Guard, SourceResponseError
from rootward.sources.span_fields import (
    HOST_KEYS,
    POD_KEYS,
    SPAN_ID_HEX,
    TRACE_ID_HEX,
    first_value,
    hex_id,
    span_kind,
)

SOURCE = "Jaeger"
T = TypeVar("T")
_CONSUMED_TAGS = {"span.kind", "error", "otel.status_code"}


class JaegerSettings(ConnectorSettings):
    base_url: str = Field(description="Jaeger query base URL, e.g. http://jaeger-query:16686 (no /api).")
    limit: int = Field(default=100, gt=0, le=1500, description="Traces per `/api/traces` request (one service).")
    max_services: int = Field(
        default=30,
        gt=0,
        description="Asked for every service, read at most this many of `/api/services` (one request each).",
    )
    dependencies_lookback_s: float = Field(
        default=86400.0, gt=0, description="Window of `/api/dependencies` the topology is read from, in seconds."
    )
    bearer_token: SecretStr | None = Field(default=None, description="Sent as `Authorization: Bearer`.")
    username: str | None = Field(default=None, description="Basic-auth user (with `password`).")
    password: SecretStr | None = Field(default=None, description="Basic-auth password.")
    verify_tls: bool = Field(default=True, description="Verify the server's TLS certificate.")
    ui_url: str | None = Field(default=None, description="Jaeger UI for trace links, when not base_url.")


def _data(body: Any) -> list[Any]:
    """The `data` list of a Jaeger answer; its `errors` list is the source's own failure message."""
    if not isinstance(body, dict):
        raise SourceResponseError(f"not a JSON object: {str(body)[:120]}")
    errors = body.get("errors") or []
    if errors:
        first = errors[0] if isinstance(errors[0], dict) else {"msg": errors[0]}
        raise SourceResponseError(f"error {first.get('code', '?')}: {first.get('msg', '')}")
    data = body.get("data")
    if data is None:
        return []
    if not isinstance(data, list):
        raise SourceResponseError("'data' is not a list")
    return data


def parse_services(body: Any) -> list[str]:
    return sorted(str(name) for name in _data(body) if name)


def _tags(items: Any) -> dict[str, Any]:
    return {str(t["key"]): t.get("value") for t in items or [] if isinstance(t, dict) and "key" in t}


def _parent(span: dict[str, Any]) -> str | None:
    """The `CHILD_OF` reference in the same trace, else the old `parentSpanID`, else a `FOLLOWS_FROM`."""
    references = [
        r
        for r in span.get("references") or []
        if isinstance(r, dict) and r.get("spanID") and r.get("traceID", span.get("traceID")) == span.get("traceID")
    ]
    child_of = [r["spanID"] for r in references if r.get("refType") == "CHILD_OF"]
    candidates = [*child_of, span.get("parentSpanID"), *(r["spanID"] for r in references)]
    parent = next((c for c in candidates if c), None)
    return hex_id(parent, SPAN_ID_HEX) if parent else None


def parse_traces(body: Any) -> list[Span]:
    """Every span of every trace in a `/api/traces` answer."""
    out: list[Span] = []
    for trace in _data(body):
        if not isinstance(trace, dict):
            raise SourceResponseError("a trace is not an object")
        processes = trace.get("processes") or {}
        for raw in trace.get("spans") or []:
            try:
                process = processes.get(raw.get("processID"), {}) or {}
                process_tags = _tags(process.get("tags"))
                tags = _tags(raw.get("tags"))
                out.append(
                    Span(
                        trace_id=hex_id(raw["traceID"], TRACE_ID_HEX),
                        span_id=hex_id(raw["spanID"], SPAN_ID_HEX),
                        service=str(process.get("serviceName") or ""),
                        start=datetime.fromtimestamp(int(raw["startTime"]) / 1e6, tz=UTC),
                        duration_ms=int(raw.get("duration") or 0) / 1000.0,
                        parent_id=_parent(raw),
                        status=attribute_status(tags),
                        kind=span_kind(tags.get("span.kind")),
                        operation=str(raw.get("operationName") or ""),
                        pod=first_value(process_tags, POD_KEYS) or first_value(tags, POD_KEYS),
                        host=first_value(process_tags, HOST_KEYS) or first_value(tags, HOST_KEYS),
                        attributes={k: v for k, v in tags.items() if k not in _CONSUMED_TAGS},
                    )
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise SourceResponseError(f"a span without a valid {exc}") from None
    return out


def parse_dependencies(body: Any) -> dict[tuple[str, str], int]:
    """`{(parent, child): callCount}` of a `/api/dependencies` answer."""
    edges: dict[tuple[str, str], int] = {}
    for link in _data(body):
        parent, child = str(link.get("parent") or ""), str(link.get("child") or "")
        if parent and child and parent != child:
            edges[(parent, child)] = edges.get((parent, child), 0) + int(link.get("callCount") or 0)
    return edges


class JaegerSource:
    """`TraceSource` and `TopologySource` over the Jaeger query service's HTTP API."""

    def __init__(
        self,
        settings: JaegerSettings,
        *,
        guard: Guard | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.settings = settings
        self.guard = guard or Guard(SOURCE, settings)
        self._clock = clock
        self.api = authenticated_api(self.guard, settings)
        self.last_invocations: tuple[str, ...] = ()
        self._asked: list[str] = []  # services searched since the last live_queries

    def live_queries(self, start: datetime, end: datetime) -> list[LiveQuery]:
        """The trace searches since the last call, each linked to the same search in the Jaeger UI."""
        ui = self.settings.ui_url or self.settings.base_url
        out = [
            LiveQuery(
                "traces",
                SOURCE,
                name,
                f"Jaeger /api/traces?service={name} [{_iso(start)} .. {_iso(end)}]",
                url=jaeger_search_url(ui, name, start, end),
            )
            for name in dict.fromkeys(self._asked)
        ]
        self._asked = []
        return out

    def _read(self, path: str, params: Params | None, parse: Callable[[Any], T]) -> T:
        """One guarded GET, parsed; an answer not in the API's shape is a gap like a 500 is."""
        body = self.api.get_json(path, params, what=path)
        try:
            return parse(body)
        except SourceResponseError as exc:
            self.guard.breaker.record_failure(str(exc))
            raise SourceUnavailable(SOURCE, f"{path} unexpected response: {exc}") from None

    def services(self) -> list[str]:
        return self._read("/api/services", None, parse_services)

    def spans(self, service: str | None, start: datetime, end: datetime) -> Sequence[Span]:
        services = [service] if service is not None else self.services()[: self.settings.max_services]
        window = {"start": _us(start), "end": _us(end), "limit": self.settings.limit}
        invocations: list[str] = []
        found: dict[tuple[str, str], Span] = {}
        for name in services:
            invocations.append(f"Jaeger /api/traces?service={name} [{_iso(start)} .. {_iso(end)}]")
            for span in self._read("/api/traces", {"service": name, **window}, parse_traces):
                found.setdefault((span.trace_id, span.span_id), span)
        self.last_invocations = tuple(invocations)
        self._asked += services
        return sorted(found.values(), key=lambda s: s.start)

    def graph(self) -> Topology:
        lookback_ms = int(self.settings.dependencies_lookback_s * 1000)
        params = {"endTs": int(self._clock().timestamp() * 1000), "lookback": lookback_ms}
        return topology_from_edges(self._read("/api/dependencies", params, parse_dependencies))

    def close(self) -> None:
        self.api.close()


def _us(moment: datetime) -> int:
    return int(moment.timestamp()) * 1_000_000 + moment.microsecond


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


CONNECTOR = Connector(
    name="jaeger",
    settings=JaegerSettings,
    description="Traces and their call graph from the Jaeger query API; empty: no Jaeger.",
    provides=frozenset({"traces", "topology"}),
    build=JaegerSource,
)
