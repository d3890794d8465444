"""Edges observed in traces: who calls whom, how often, how often it fails, how slowly; and where it runs.

A span whose parent belongs to another service is one call from the parent's
service into the span's service; a client span naming its `peer.service`
with no span of the callee under it is a call into something uninstrumented
(a database, an external API). Either way the caller `depends_on` the
callee. Per edge we keep the number of calls, their rate over the spans'
time range, the error share (None when the tracer recorded no status) and
the latency the caller waited (p50, p95).

Spans also say where the work ran (`host`): a service seen on a host
`runs_on` it. That is co-location from telemetry, next to what the
Kubernetes layer reads from each pod's node.

Both become claims of the `traces` layer, with their own expiry like every
other layer. Confidence grows with the evidence: `0.9·n/(n+2)` for `n`
calls, so a single sampled call is a hint (0.30) and a busy edge is nearly
as sure as the cluster's own API (0.88 at 100 calls). A call graph only
knows the calls that happened while it was watched, so it never removes an
edge another layer declared.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from rootward.domain.telemetry import Span
from rootward.worldmodel.graph import EdgeClaim, WorldGraph
from rootward.worldmodel.timing import quantile

TRACES_LAYER = "traces"
TRACES_CAP = 0.9
TRACES_TTL_S = 24 * 3600.0


def trace_confidence(calls: int) -> float:
    return TRACES_CAP * calls / (calls + 2)


@dataclass(frozen=True)
class CallEdge:
    caller: str
    callee: str
    calls: int
    rate_per_s: float
    error_share: float | None  # None: no call had a recorded status
    latency_p50_ms: float
    latency_p95_ms: float

    @property
    def note(self) -> str:
        errors = "errors unknown" if self.error_share is None else f"{100 * self.error_share:.1f}% errors"
        return (
            f"{self.calls} calls, {self.rate_per_s:.3g}/s, {errors}, "
            f"p50 {self.latency_p50_ms:.0f} ms, p95 {self.latency_p95_ms:.0f} ms"
        )


@dataclass
class _Calls:
    durations: list[float]
    statuses: list[bool | None]  # True: error


def _observed_calls(spans: list[Span]) -> dict[tuple[str, str], _Calls]:
    by_id = {(s.trace_id, s.span_id): s for s in spans}
    children_elsewhere: set[tuple[str, str]] = set()
    out: dict[tuple[str, str], _Calls] = {}

    def add(caller: str, callee: str, span: Span) -> None:
        calls = out.setdefault((caller, callee), _Calls([], []))
        calls.durations.append(span.duration_ms)
        calls.statuses.append(None if span.status is None else span.status == "error")

    for span in spans:
        parent = by_id.get((span.trace_id, span.parent_id)) if span.parent_id else None
        if parent is None or not parent.service or not span.service or parent.service == span.service:
            continue
        children_elsewhere.add((parent.trace_id, parent.span_id))
        # The caller's client span is what the caller waited for; the callee's span if there is none.
        add(parent.service, span.service, parent if parent.kind == "client" else span)
    for span in spans:
        peer = span.attributes.get("peer.service")
        if span.kind != "client" or not isinstance(peer, str) or not peer or peer == span.service:
            continue
        if (span.trace_id, span.span_id) not in children_elsewhere:
            add(span.service, peer, span)
    return out


def call_edges(spans: Iterable[Span]) -> list[CallEdge]:
    """Every caller → callee pair in the spans, with call counts, rate, error share and latency."""
    listed = list(spans)
    if not listed:
        return []
    starts = [s.start for s in listed]
    seconds = max(1.0, (max(starts) - min(starts)).total_seconds())
    out = []
    for (caller, callee), calls in sorted(_observed_calls(listed).items()):
        known = [s for s in calls.statuses if s is not None]
        out.append(
            CallEdge(
                caller=caller,
                callee=callee,
                calls=len(calls.durations),
                rate_per_s=len(calls.durations) / seconds,
                error_share=sum(known) / len(known) if known else None,
                latency_p50_ms=quantile(calls.durations, 0.5),
                latency_p95_ms=quantile(calls.durations, 0.95),
            )
        )
    return out


def hosts_of(spans: Iterable[Span]) -> dict[tuple[str, str], int]:
    """`{(service, host): spans}`: where each service's work ran, by the spans' own host."""
    out: dict[tuple[str, str], int] = {}
    for span in spans:
        if span.service and span.host and span.host != span.service:
            out[(span.service, span.host)] = out.get((span.service, span.host), 0) + 1
    return out


def seed_traces(
    graph: WorldGraph,
    spans: Iterable[Span],
    *,
    now: datetime | None = None,
    ttl_s: float | None = TRACES_TTL_S,
) -> int:
    """Add the spans' call edges (`depends_on`) and hosts (`runs_on`) as `traces` claims; returns the claim count."""
    now = now or datetime.now(UTC)
    until = now + timedelta(seconds=ttl_s) if ttl_s else None
    listed = list(spans)
    count = 0
    for edge in call_edges(listed):
        for name in (edge.caller, edge.callee):
            if not graph.has_entity(name):
                graph.add_entity(name, "service")
        graph.add_claim(
            edge.caller,
            edge.callee,
            EdgeClaim(TRACES_LAYER, "depends_on", trace_confidence(edge.calls), now, until, note=edge.note),
        )
        count += 1
    for (service, host), n in sorted(hosts_of(listed).items()):
        if not graph.has_entity(host):
            graph.add_entity(host, "host")
        note = f"{n} spans ran on {host}"
        graph.add_claim(service, host, EdgeClaim(TRACES_LAYER, "runs_on", trace_confidence(n), now, until, note=note))
        count += 1
    return count
