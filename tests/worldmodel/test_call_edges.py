from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rootward.domain.telemetry import Span
from rootward.worldmodel.call_edges import TRACES_LAYER, call_edges, seed_traces, trace_confidence
from rootward.worldmodel.graph import WorldGraph

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _request(i: int, *, fail_db: bool = False) -> list[Span]:
    """web (server) -> web client -> api (server) -> api client to an uninstrumented `db` (peer.service)."""
    trace, at = f"t{i}", T0 + timedelta(seconds=10 * i)
    return [
        Span(trace, "a", "web", at, 50.0, None, "ok", "server", host="node-1"),
        Span(trace, "b", "web", at, 40.0, "a", "ok", "client", host="node-1"),
        Span(trace, "c", "api", at, 35.0, "b", "error" if fail_db else "ok", "server", host="node-2"),
        Span(
            trace, "d", "api", at, 30.0 if not fail_db else 900.0, "c", "error" if fail_db else "ok", "client",
            host="node-2", attributes={"peer.service": "db"},
        ),
    ]  # fmt: skip


def test_call_edges_count_calls_errors_and_the_latency_the_caller_waited() -> None:
    spans = [s for i in range(10) for s in _request(i, fail_db=i >= 8)]
    edges = {(e.caller, e.callee): e for e in call_edges(spans)}
    assert set(edges) == {("web", "api"), ("api", "db")}
    api = edges[("web", "api")]
    assert api.calls == 10 and api.latency_p50_ms == 40.0  # the web client span, not the api's own work
    db = edges[("api", "db")]
    assert db.calls == 10 and db.error_share == 0.2 and db.latency_p95_ms == 900.0
    assert abs(db.rate_per_s - 10 / 90) < 1e-9  # ten calls over the 90 s the spans cover


def test_unknown_status_is_not_counted_as_success() -> None:
    spans = [Span("t", "a", "web", T0, 5.0, None), Span("t", "b", "api", T0, 4.0, "a")]
    assert call_edges(spans)[0].error_share is None


def test_seeded_call_edges_and_hosts_are_claims_of_their_own_layer_with_expiry() -> None:
    graph = WorldGraph()
    spans = [s for i in range(20) for s in _request(i)]
    count = seed_traces(graph, spans, now=T0, ttl_s=3600)
    assert count == 4  # web->api, api->db, web runs_on node-1, api runs_on node-2
    view = graph.edge("web", "api")
    assert view is not None and view.layers == (TRACES_LAYER,) and view.relation == "depends_on"
    assert view.confidence == trace_confidence(20) and "20 calls" in view.claims[0].note
    hosted = graph.edge("api", "node-2")
    assert hosted is not None and hosted.relation == "runs_on" and graph.kind("node-2") == "host"
    assert graph.expire(T0 + timedelta(hours=2))  # nobody re-seeded: the observed calls go stale
    assert not graph.has_edge("web", "api")


def test_more_calls_make_a_surer_edge_but_never_surer_than_the_cap() -> None:
    assert trace_confidence(1) < trace_confidence(5) < trace_confidence(100) < 0.9
