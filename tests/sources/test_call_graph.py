"""The call graph seen in spans: a parent in another service is one call into the child's service."""

from __future__ import annotations

from datetime import UTC, datetime

from rootward.domain.telemetry import Span
from rootward.sources.call_graph import call_edges, topology_from_edges

T0 = datetime(2026, 3, 14, 13, 40, tzinfo=UTC)


def _span(trace: str, span: str, service: str, parent: str | None = None) -> Span:
    return Span(trace_id=trace, span_id=span, service=service, start=T0, duration_ms=1.0, parent_id=parent)


def test_calls_between_services_are_counted_and_calls_inside_one_are_not() -> None:
    spans = [
        _span("t1", "a", "frontend"),
        _span("t1", "b", "frontend", "a"),  # a client span of the same service
        _span("t1", "c", "checkout", "b"),
        _span("t1", "d", "payment", "c"),
        _span("t2", "a", "frontend"),
        _span("t2", "c", "checkout", "a"),
        _span("t2", "x", "payment", "missing"),  # parent not read: no caller known
        _span("t3", "c", "cart", "a"),  # same span ids in another trace are another call
    ]
    assert call_edges(spans) == {("frontend", "checkout"): 2, ("checkout", "payment"): 1}


def test_caller_depends_on_callee_and_a_leaf_is_still_an_entity() -> None:
    graph = topology_from_edges([("frontend", "checkout"), ("checkout", "payment"), ("frontend", "checkout")])
    assert graph.entities["frontend"].depends_on == ("checkout",)
    assert graph.has_edge("checkout", "payment") and not graph.has_edge("payment", "checkout")
    assert graph.entities["payment"].depends_on == () and graph.entities["payment"].kind == "service"
