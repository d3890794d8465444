"""Grafana Tempo as a `TraceSource`, and the calls its spans show as a `TopologySource`.

`spans(service, start, end)` searches with TraceQL
(`GET /api/search?q={ resource.service.name = "checkout" }&start=&end=&limit=`,
epoch seconds), then reads each trace found by id (`GET /api/traces/<id>`,
OTLP JSON). Tempo answers in either OTLP wording (`batches` or
`resourceSpans`, `scopeSpans` or `instrumentationLibrarySpans`) and with
ids as base64 (protobuf JSON) or hex; all become hex, so a span reads the same
as from Jaeger. `graph()` is the caller → callee service pairs of the spans
of the last `topology_lookback_s`. The queries are kept in `last_invocations`
for citation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import quote

from pydantic import Field, SecretStr

from rootward.domain.live import LiveQuery
from rootward.domain.span_status import attribute_status
from rootward.domain.telemetry import Span, SpanStatus
from rootward.domain.topology import Topology
from rootward.sources.base import SourceUnavailable
from rootward.sources.call_graph import call_edges, topology_from_edges
from rootward.sources.connector import Connector
from rootward.sources.httpapi import Params, authenticated_api
from rootward.sources.links import grafana_explore_url
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

SOURCE = "Tempo"
T = TypeVar("T")
# OTLP's enum numbers, for answers that carry them as integers.
_KIND_NUMBERS = {1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}
_STATUS: dict[Any, SpanStatus] = {"STATUS_CODE_OK": "ok", "STATUS_CODE_ERROR": "error", 1: "ok", 2: "error"}


class TempoSettings(ConnectorSettings):
    base_url: str = Field(description="Tempo query-frontend base URL, e.g. http://tempo:3200 (no /api).")
    service_attribute: str = Field(
        default="resource.service.name", description="TraceQL attribute whose value is the service name."
    )
    filter: str = Field(
        default="",
        description="Extra TraceQL conditions and-ed into every search, "
        'e.g. `resource.deployment.environment = "prod"`.',
    )
    limit: int = Field(default=50, gt=0, le=1000, description="Traces per search; each is then read by id.")
    topology_lookback_s: float = Field(
        default=3600.0, gt=0, description="Window whose spans give the topology's caller → callee calls, in seconds."
    )
    tenant_id: str | None = Field(default=None, description="Sent as X-Scope-OrgID for multi-tenant Tempo.")
    bearer_token: SecretStr | None = Field(default=None, description="Sent as `Authorization: Bearer`.")
    username: str | None = Field(default=None, description="Basic-auth user (with `password`).")
    password: SecretStr | None = Field(default=None, description="Basic-auth password.")
    verify_tls: bool = Field(default=True, description="Verify the server's TLS certificate.")
    grafana_url: str | None = Field(default=None, description="Grafana base URL: trace cites link to Explore.")
    grafana_datasource: str | None = Field(default=None, description="Grafana uid of this Tempo data source.")


def traceql_string(value: str) -> str:
    """A double-quoted TraceQL string literal."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_traceql(settings: TempoSettings, service: str | None) -> str:
    conditions = []
    if service is not None:
        conditions.append(f"{settings.service_attribute} = {traceql_string(service)}")
    if settings.filter.strip():
        conditions.append(settings.filter.strip())
    return "{ " + " && ".join(conditions) + " }" if conditions else "{}"


def parse_search(body: Any) -> list[str]:
    """Trace ids of a `/api/search` answer, in Tempo's order."""
    if not isinstance(body, dict) or not isinstance(body.get("traces", []), list):
        raise SourceResponseError(f"not a search result: {str(body)[:120]}")
    return [str(t["traceID"]) for t in body.get("traces") or [] if isinstance(t, dict) and t.get("traceID")]


def _value(value: Any) -> Any:
    """An OTLP `AnyValue` as a plain value."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_value(v) for v in (value["arrayValue"] or {}).get("values") or []]
    return None


def _attributes(items: Any) -> dict[str, Any]:
    return {str(a["key"]): _value(a.get("value")) for a in items or [] if isinstance(a, dict) and "key" in a}


def _kind(value: Any) -> Any:
    return _KIND_NUMBERS.get(value) if isinstance(value, int) else span_kind(value)


def parse_trace(body: Any) -> list[Span]:
    """Every span of a `/api/traces/<id>` answer (OTLP JSON, either wording)."""
    if isinstance(body, dict) and isinstance(body.get("trace"), dict):  # /api/v2/traces wraps it
        body = body["trace"]
    if not isinstance(body, dict):
        raise SourceResponseError(f"not an OTLP trace: {str(body)[:120]}")
    out: list[Span] = []
    for batch in body.get("batches") or body.get("resourceSpans") or []:
        resource = _attributes((batch.get("resource") or {}).get("attributes"))
        scopes = batch.get("scopeSpans") or batch.get("instrumentationLibrarySpans") or []
        for raw in (span for scope in scopes for span in scope.get("spans") or []):
            try:
                start_ns, end_ns = int(raw["startTimeUnixNano"]), int(raw["endTimeUnixNano"])
                attributes = _attributes(raw.get("attributes"))
                out.append(
                    Span(
                        trace_id=hex_id(raw["traceId"], TRACE_ID_HEX),
                        span_id=hex_id(raw["spanId"], SPAN_ID_HEX),
                        service=str(resource.get("service.name") or ""),
                        start=_moment(start_ns),
                        duration_ms=max(0, end_ns - start_ns) / 1e6,
                        parent_id=hex_id(raw.get("parentSpanId"), SPAN_ID_HEX) or None,
                        status=_STATUS.get((raw.get("status") or {}).get("code")) or attribute_status(attributes),
                        kind=_kind(raw.get("kind")),
                        operation=str(raw.get("name") or ""),
                        pod=first_value(resource, POD_KEYS) or first_value(attributes, POD_KEYS),
                        host=first_value(resource, HOST_KEYS) or first_value(attributes, HOST_KEYS),
                        attributes=attributes,
                    )
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise SourceResponseError(f"a span without a valid {exc}") from None
    return out


class TempoSource:
    """`TraceSource` and `TopologySource` over Tempo's query-frontend HTTP API."""

    def __init__(
        self,
        settings: TempoSettings,
        *,
        guard: Guard | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.settings = settings
        self.guard = guard or Guard(SOURCE, settings)
        self._clock = clock
        tenant = {"X-Scope-OrgID": settings.tenant_id} if settings.tenant_id else {}
        self.api = authenticated_api(self.guard, settings, tenant)
        self.last_invocations: tuple[str, ...] = ()
        self._asked: list[tuple[str, str]] = []  # (service or "", TraceQL) since the last live_queries

    def live_queries(self, start: datetime, end: datetime) -> list[LiveQuery]:
        """The TraceQL searches since the last call, linked to Grafana Explore when configured."""
        s = self.settings
        out = []
        for service, query in dict.fromkeys(self._asked):
            target = {"queryType": "traceql", "query": query}
            url = grafana_explore_url(s.grafana_url, s.grafana_datasource, target, start, end) if s.grafana_url else ""
            out.append(LiveQuery("traces", SOURCE, service, f"TraceQL {query} [{_iso(start)} .. {_iso(end)}]", url=url))
        self._asked = []
        return out

    def _read(self, path: str, params: Params | None, parse: Callable[[Any], T], what: str) -> T:
        """One guarded GET, parsed; an answer not in the API's shape is a gap like a 500 is."""
        body = self.api.get_json(path, params, what=what)
        try:
            return parse(body)
        except SourceResponseError as exc:
            self.guard.breaker.record_failure(str(exc))
            raise SourceUnavailable(SOURCE, f"{what} unexpected response: {exc}") from None

    def spans(self, service: str | None, start: datetime, end: datetime) -> Sequence[Span]:
        query = build_traceql(self.settings, service)
        window = {"start": math.floor(start.timestamp()), "end": math.ceil(end.timestamp())}
        self.last_invocations = (f"TraceQL {query} [{_iso(start)} .. {_iso(end)}]",)
        self._asked.append((service or "", query))
        ids = self._read(
            "/api/search", {"q": query, **window, "limit": self.settings.limit}, parse_search, "/api/search"
        )
        found: dict[tuple[str, str], Span] = {}
        for trace_id in dict.fromkeys(ids):
            path = f"/api/traces/{quote(trace_id, safe='')}"  # an id is data from the server, not a path
            for span in self._read(path, window, parse_trace, "/api/traces/<id>"):
                found.setdefault((span.trace_id, span.span_id), span)
        return sorted(found.values(), key=lambda s: s.start)

    def graph(self) -> Topology:
        end = self._clock()
        spans = self.spans(None, end - timedelta(seconds=self.settings.topology_lookback_s), end)
        return topology_from_edges(call_edges(spans))

    def close(self) -> None:
        self.api.close()


def _moment(ns: int) -> datetime:
    """Epoch nanoseconds as a datetime, exact to the microsecond (a float would round)."""
    return datetime.fromtimestamp(ns // 1_000_000_000, tz=UTC) + timedelta(microseconds=ns % 1_000_000_000 // 1000)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


CONNECTOR = Connector(
    name="tempo",
    settings=TempoSettings,
    description="Traces from Grafana Tempo (TraceQL search, then trace by id) and the calls they show; "
    "empty: no Tempo.",
    provides=frozenset({"traces", "topology"}),
    build=TempoSource,
)
