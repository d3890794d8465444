"""A graph cut from the spans' columns read once is the graph of those spans alone, code for code."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import numpy as np

from rootward.context.span_graph import SpanTable, span_graph
from rootward.domain.telemetry import Span

T0 = datetime(2026, 3, 15, 10, tzinfo=UTC)


def _spans(traces: int = 40) -> list[Span]:
    """Traces through a gateway into two services and a store, some calls to peers no span serves."""
    rng = random.Random(7)
    out: list[Span] = []
    for t in range(traces):
        at = T0 + timedelta(seconds=15 * t)
        tid = f"{t:032x}"
        out.append(Span(tid, "g", "gateway", at, 30.0 + rng.random(), None, None, "server", f"GET /orders/{t}"))
        out.append(Span(tid, "gc", "gateway", at, 25.0, "g", None, "client", "call orders"))
        out.append(Span(tid, "o", "orders", at, 20.0, "gc", "error" if t % 9 == 0 else "ok", "server", "orders"))
        # A peer that is a service later in the trace, one that is another span's service, one no span serves.
        peer = ("payments", "orders", "vendor-api")[t % 3]
        out.append(Span(tid, "oc", "orders", at, 8.0, "o", None, "client", "pay", attributes={"peer.service": peer}))
        if t % 2:
            out.append(Span(tid, "p", "payments", at, 5.0 * (1 + rng.random()), "oc", None, None, "charge"))
    return out


def _same(a: object, b: object) -> bool:
    return repr(a) == repr(b)


def test_every_subset_graph_equals_the_graph_of_its_spans_alone() -> None:
    spans = _spans()
    table = SpanTable(spans)
    assert _same(table.graph(), span_graph(spans))
    rng = random.Random(3)
    k = len(spans)
    subsets = [list(range(k // 2, k)), sorted(rng.sample(range(k), k // 3)), [k - 1], []]
    subsets += [[i for i, s in enumerate(spans) if s.service != "orders"]]  # parents missing, peers renumbered
    for rows in subsets:
        logged = {j: frozenset({f"template {j % 3}"}) for j in range(0, len(rows), 4)} or None
        cut = table.graph(np.array(rows, dtype=np.int64), logged)
        alone = span_graph([spans[i] for i in rows], logged)
        assert _same(cut, alone), len(rows)


def test_services_are_numbered_as_they_first_appear_in_the_subset() -> None:
    spans = _spans()
    late = [i for i, s in enumerate(spans) if s.service in ("payments", "orders")]
    graph = SpanTable(spans).graph(np.array(late, dtype=np.int64))
    assert graph.services[:2] == ("orders", "payments")
    assert "vendor-api" in graph.services and "gateway" not in graph.services


def test_shared_span_ids_read_the_subset_from_its_spans() -> None:
    spans = _spans(6)
    twin = spans[2]  # the same (trace, span) id twice: which one a child's parent is depends on the subset
    spans.append(Span(twin.trace_id, twin.span_id, "orders-canary", twin.start, 3.0, twin.parent_id))
    table = SpanTable(spans)
    rows = [i for i in range(len(spans)) if i != len(spans) - 1]
    assert _same(table.graph(np.array(rows, dtype=np.int64)), span_graph([spans[i] for i in rows]))
