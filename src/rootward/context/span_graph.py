"""Spans as arrays: who called whom, each span's self time, and the calls into each service.

A trace is a tree of spans; what an investigator needs from it is per *call*:
how long a service took to answer (its entry span), how much of that was its
own work rather than waiting on its dependencies (self time), how long each
call looked from the caller's side, and how much of that the callee never saw
(the caller's client span minus the callee's server span: network and queue).
Errors are placed where they originate: the deepest errored span whose
children did not error. Where spans carry no status at all, a failure still
shows in the shape of the trace: a caller that gets an error (or an answer it
cannot use) from a dependency stops its own work there, so its calls make fewer
calls out and more of them *end* with the call to that dependency. Each call
edge row says whether it was the last call out of the caller's call.

Everything is computed in one vectorised pass over numpy arrays, so 20,000
spans take milliseconds. Tracers differ in what they mark: `kind` may be
missing, in which case a span whose children all belong to other services is
taken for the client side of a call, and a childless span with the same
operation for a call that was never answered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from rootward.domain.telemetry import PEER_KEYS, Span

CLIENT_KINDS = frozenset({"client", "producer"})
NO_CALLER = -1


@dataclass(frozen=True)
class ServiceCalls:
    """One row per call into a service: its entry span (a root, or a span whose parent is another service's)."""

    service: np.ndarray  # service code
    caller: np.ndarray  # caller's service code, NO_CALLER for roots
    op: np.ndarray  # operation code of the entry span: what the caller asked for
    at: np.ndarray  # epoch seconds the entry span started
    total_ms: np.ndarray  # entry span duration: how long the service took to answer
    self_ms: np.ndarray  # the service's own work in this call: its spans' self time, calls out excluded
    failed: np.ndarray  # bool: the entry span errored
    originated: np.ndarray  # bool: an error originated in the service's own spans during this call
    fanout: np.ndarray  # how many calls out this call made (0 for a leaf's)


@dataclass(frozen=True)
class EdgeCalls:
    """One row per call from a caller to a callee, seen from the caller's side."""

    caller: np.ndarray
    callee: np.ndarray
    at: np.ndarray  # epoch seconds the caller's side of the call started
    callee_at: np.ndarray  # epoch seconds the callee's span started; nan when it has none
    latency_ms: np.ndarray  # the call as the caller saw it (client span, else the callee's span)
    network_ms: np.ndarray  # client span time the callee's span does not cover; nan without both spans
    callee_ms: np.ndarray  # the callee's entry span duration; nan when it has none
    callee_self_ms: np.ndarray  # the callee's own work in the call (self time, calls out excluded); nan likewise
    failed: np.ndarray  # bool: the caller's side of the call errored
    unanswered: np.ndarray  # bool: a client span with no span of the callee under it
    call: np.ndarray  # row in `ServiceCalls` of the caller's call this call out was made in
    last: np.ndarray  # bool: the last call out (latest start) of that call of the caller
    answer: np.ndarray  # row in `ServiceCalls` of the callee's call that answered it, -1 for none


@dataclass(frozen=True)
class CodePaths:
    """Which of its own operations each call ran: one row per (call, operation) of the service's inner spans.

    Inner spans are neither the call's entry nor calls out: the work the service's code chose to do.
    Saturation slows them; only different code (or different data) changes which of them run.
    """

    call: np.ndarray  # row in `ServiceCalls`
    op: np.ndarray  # operation code


@dataclass(frozen=True)
class SpanGraph:
    services: tuple[str, ...]  # code -> name (callees named only by peer attributes included)
    calls: ServiceCalls
    edges: EdgeCalls
    has_status: bool  # some span says ok or error; otherwise failures cannot be told
    paths: CodePaths | None = None
    operations: tuple[str, ...] = ()  # operation code -> name
    # Which log templates each call's service logged in it (`op` is a template code), when lines name spans.
    logged: CodePaths | None = None
    templates: tuple[str, ...] = ()  # template code -> template

    def operation(self, code: int) -> str:
        return self.operations[code].partition("\x00")[2]

    def name(self, code: int) -> str:
        return self.services[code]


class _Codes:
    def __init__(self) -> None:
        self.names: list[str] = []
        self._index: dict[str, int] = {}

    def code(self, name: str) -> int:
        found = self._index.get(name)
        if found is None:
            found = self._index[name] = len(self.names)
            self.names.append(name)
        return found


def _peer(span: Span) -> str:
    for key in PEER_KEYS:
        value = span.attributes.get(key)
        if value not in (None, ""):
            return str(value)
    return ""


def _covered_by_children(parent: np.ndarray, start: np.ndarray, end: np.ndarray, n: int) -> np.ndarray:
    """Per span, how much of its interval its children cover (their union: parallel calls count once)."""
    child = np.nonzero(parent >= 0)[0]
    if child.size == 0:
        return np.zeros(n)
    par = parent[child]
    lo = np.maximum(start[child], start[par])
    hi = np.minimum(end[child], end[par])
    order = np.lexsort((lo, par))
    par, lo, hi = par[order], lo[order], np.maximum(hi[order], lo[order])
    # Running maximum of the children's ends within each parent: offset each group so one
    # np.maximum.accumulate over all of them never carries an end across groups.
    width = float(end.max() - start.min()) + 1.0
    offset = par * width
    reach = np.maximum.accumulate(hi + offset) - offset
    first = np.ones(par.size, dtype=bool)
    first[1:] = par[1:] != par[:-1]
    before = np.where(first, -np.inf, np.roll(reach, 1))
    gained = np.clip(hi - np.maximum(lo, before), 0.0, None)
    return np.bincount(par, weights=gained, minlength=n)


def _acyclic(parent: np.ndarray) -> np.ndarray:
    """`parent` with no cycles: a span whose chain of parents never reaches a root starts one.

    Parent ids loop only in broken data (a span its own parent, two spans each other's, an
    exporter that reused ids); every walk up the tree would then never end. Doubling the jump
    (2^k-th ancestor) log2(n) + 1 times leaves -1 for every span whose chain ends, and a span
    for every one in or below a loop.
    """
    anc = parent.copy()
    for _ in range(int(parent.size).bit_length() + 1):
        anc = np.where(anc >= 0, anc[np.where(anc >= 0, anc, 0)], -1)
        if not (anc >= 0).any():
            return parent
    return np.where(anc >= 0, -1, parent)


def _entry_of(entry: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Per span, the entry span of the call it belongs to (pointer jumping up same-service parents)."""
    up = np.where(entry, np.arange(entry.size), parent)
    while True:
        nxt = up[up]
        if np.array_equal(nxt, up):
            return up
        up = nxt


# A path segment that is a value, not a route: a number, a UUID, a long hex or base-36 id.
_ID_SEGMENT = re.compile(
    r"(?<=/)(?:\d+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|(?=[0-9a-zA-Z_-]*\d)[0-9a-zA-Z_-]{16,}|(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,})(?=/|$)"
)


@lru_cache(maxsize=65536)
def route_of(operation: str) -> str:
    """The operation as its route: ids in the path read as `{id}`, the query string dropped.

    Tracers name an HTTP span by the URL it served as often as by its route
    (`GET /api/orders/8812` and `GET /api/orders/8813` are one operation of
    the service). Read as distinct operations, every call would be the only
    one of its kind: nothing learned from one call would apply to the next
    (which callee an unanswered call was for, which code path a call took).
    """
    path = operation.split("?", 1)[0]
    return _ID_SEGMENT.sub("{id}", path) if "/" in path else path


@dataclass(frozen=True)
class _Spans:
    """The per-span columns the calls and edges are cut from (index = position in the input)."""

    svc: np.ndarray
    op: np.ndarray
    parent: np.ndarray
    start: np.ndarray
    dur: np.ndarray
    err: np.ndarray
    client: np.ndarray
    unknown_kind: np.ndarray
    peer: np.ndarray


def span_graph(spans: Sequence[Span], logged: Mapping[int, Iterable[str]] | None = None) -> SpanGraph:
    """The calls and call edges in `spans`; a span whose parent is not among them starts a call of its own.

    `logged`: per span index, the log templates its service wrote in it (`context.log_span_paths`).
    """
    codes, ops = _Codes(), _Codes()
    columns, _ = _columns(spans, codes, ops)
    return _built(codes.names, ops.names, columns, any(s.status is not None for s in spans), logged)


class SpanTable:
    """The columns of a list of spans, read once for every graph built from all of them or from a subset.

    The onset scan reads all the spans and the comparison a window of them; reading 20,000
    spans' columns twice cost ~40 ms. A subset's graph is the one `span_graph` builds from
    those spans alone, code for code: services, peers and operations are numbered again in
    the order they first appear in the subset, and a parent outside it is none. Where two
    spans share a (trace, span) id (which one a child's parent is then depends on which are
    in the subset), the subset's columns are read from its spans.
    """

    def __init__(self, spans: Sequence[Span]) -> None:
        self.spans = spans
        self._codes, self._ops = _Codes(), _Codes()
        self._columns, self._unique = _columns(spans, self._codes, self._ops)
        self._stated = np.array([s.status is not None for s in spans], dtype=bool)

    def graph(self, rows: np.ndarray | None = None, logged: Mapping[int, Iterable[str]] | None = None) -> SpanGraph:
        """The graph of every span, or of the spans at `rows` (ascending; `logged` keyed by position in them)."""
        c = self._columns
        if rows is None:
            return _built(self._codes.names, self._ops.names, c, bool(self._stated.any()), logged)
        if not self._unique:
            return span_graph([self.spans[i] for i in rows.tolist()], logged)
        svc, names = _renumbered(c.svc[rows], self._codes.names)
        peer = c.peer[rows]
        present = peer >= 0
        if present.any():
            # Peers are numbered after every service of the subset, in the order they first appear.
            known = {name: code for code, name in enumerate(names)}
            for code in _first_seen(peer[present]).tolist():
                name = self._codes.names[code]
                if name not in known:
                    known[name] = len(names)
                    names.append(name)
            lookup = np.array([known.get(name, -1) for name in self._codes.names], dtype=np.int64)
            peer = np.where(present, lookup[np.where(present, peer, 0)], -1)
        op, operations = _renumbered(c.op[rows], self._ops.names)
        position = np.full(c.parent.size, -1, dtype=np.int64)
        position[rows] = np.arange(rows.size)
        parent = c.parent[rows]
        parent = np.where(parent >= 0, position[np.where(parent >= 0, parent, 0)], -1)
        columns = _Spans(
            svc=svc,
            op=op,
            parent=parent,
            start=c.start[rows],
            dur=c.dur[rows],
            err=c.err[rows],
            client=c.client[rows],
            unknown_kind=c.unknown_kind[rows],
            peer=peer,
        )
        return _built(names, operations, columns, bool(self._stated[rows].any()), logged)


def _first_seen(codes: np.ndarray) -> np.ndarray:
    """The distinct values of `codes` in the order they first appear."""
    unique, first = np.unique(codes, return_index=True)
    return unique[np.argsort(first, kind="stable")]


def _renumbered(codes: np.ndarray, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """`codes` numbered 0.. in the order they first appear, and the names of the new numbers."""
    order = _first_seen(codes)
    remap = np.full(len(names), -1, dtype=np.int64)
    remap[order] = np.arange(order.size)
    return remap[codes], [names[code] for code in order.tolist()]


def _built(
    names: list[str],
    operations: list[str],
    columns: _Spans,
    has_status: bool,
    logged: Mapping[int, Iterable[str]] | None,
) -> SpanGraph:
    """The graph of `columns`, whose services (and peers) and operations are numbered as `names` and `operations`."""
    codes = _Codes()
    for name in names:
        codes.code(name)
    if columns.svc.size == 0:
        return _empty(codes, has_status)
    graph, call_of = _graph(codes, replace(columns, parent=_acyclic(columns.parent)), has_status)
    graph = replace(graph, operations=tuple(operations))
    return _with_logged(graph, call_of, logged) if logged else graph


def _columns(spans: Sequence[Span], codes: _Codes, ops: _Codes) -> tuple[_Spans, bool]:
    """The spans' columns, each read by a list comprehension (generators fed to `np.fromiter` cost
    twice as much on 20,000 spans), each (service, operation)'s route found once.

    Service codes are given in the order the services first appear, and peers after every
    service: the order `graph.services` lists them in. Also: whether every (trace, span) id is unique.
    """
    traces = [s.trace_id for s in spans]
    pairs_of_ids = zip(traces, [s.span_id for s in spans], strict=True)
    ids = dict(zip(pairs_of_ids, range(len(spans)), strict=True))  # the last one wins
    get_id, service_code = ids.get, codes.code
    services = [s.service for s in spans]
    pairs = [(s.service, s.operation) for s in spans]
    routes = {pair: ops.code(f"{pair[0]}\x00{route_of(pair[1])}") for pair in dict.fromkeys(pairs)}
    kinds = [s.kind for s in spans]
    dur = np.array([s.duration_ms for s in spans], dtype=np.float64)
    columns = _Spans(
        svc=np.array([service_code(name) for name in services], dtype=np.int64),
        op=np.array([routes[pair] for pair in pairs], dtype=np.int64),
        parent=np.array(
            [get_id((t, p), -1) if p else -1 for t, p in zip(traces, [s.parent_id for s in spans], strict=True)],
            dtype=np.int64,
        ),
        start=np.array([s.start.timestamp() for s in spans], dtype=np.float64),
        dur=np.where(dur > 0.0, dur, 0.0),  # never below zero (NaN too: read as no time)
        err=np.array([s.status == "error" for s in spans], dtype=bool),
        client=np.array([k in CLIENT_KINDS for k in kinds], dtype=bool),
        unknown_kind=np.array([k is None for k in kinds], dtype=bool),
        peer=np.array(
            [service_code(p) if (p := _peer(s) if s.attributes else "") else -1 for s in spans], dtype=np.int64
        ),
    )
    return columns, len(ids) == len(spans)


def _with_logged(graph: SpanGraph, call_of: np.ndarray, logged: Mapping[int, Iterable[str]]) -> SpanGraph:
    """The graph with, per call, the templates its service logged in any of its spans of that call."""
    templates = _Codes()
    pairs = {(int(call_of[i]), templates.code(t)) for i, found in logged.items() for t in found if call_of[i] >= 0}
    rows = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    return replace(graph, logged=CodePaths(rows[:, 0], rows[:, 1]), templates=tuple(templates.names))


def _graph(codes: _Codes, c: _Spans, has_status: bool) -> tuple[SpanGraph, np.ndarray]:
    """The graph, and per span the row of the service call it belongs to."""
    n = c.svc.size
    parent = c.parent
    has_parent = parent >= 0
    psvc = np.where(has_parent, c.svc[np.where(has_parent, parent, 0)], NO_CALLER)
    cross = has_parent & (psvc != c.svc)
    entry = ~has_parent | cross
    n_child = np.bincount(parent[has_parent], minlength=n)
    n_cross = np.bincount(parent[cross], minlength=n)
    n_err_child = np.bincount(parent[has_parent & c.err], minlength=n)
    start_ms = (c.start - c.start.min()) * 1000.0
    self_ms = np.clip(c.dur - _covered_by_children(parent, start_ms, start_ms + c.dur, n), 0.0, None)
    # The client side of a call: marked so, or (kind unknown) a span whose one child is another
    # service's, and then every span of the same operation, answered or not.
    calls_out = c.unknown_kind & ~entry & (n_child == 1) & (n_cross == 1)
    exit_op = np.zeros(int(c.op.max()) + 1, dtype=bool)
    exit_op[c.op[calls_out]] = True
    exit_ = c.client | (c.unknown_kind & ~entry & exit_op[c.op])
    origin = c.err & (n_err_child == 0)
    entry_of = _entry_of(entry, parent)
    local = ~exit_
    e = np.nonzero(entry)[0]
    own_self = np.bincount(entry_of[local], weights=self_ms[local], minlength=n)
    own_origin = np.bincount(entry_of[local & origin], minlength=n) > 0
    row = np.full(n, -1, dtype=np.int64)
    row[e] = np.arange(e.size)
    edges = _edges(c, exit_, cross, self_ms, own_self, row[entry_of])
    fanout = np.bincount(edges.call[edges.call >= 0], minlength=e.size)
    calls = ServiceCalls(c.svc[e], psvc[e], c.op[e], c.start[e], c.dur[e], own_self[e], c.err[e], own_origin[e], fanout)
    inner = np.nonzero(local & ~entry)[0]
    pairs = np.unique(row[entry_of[inner]] * (int(c.op.max()) + 1) + c.op[inner])
    paths = CodePaths(pairs // (int(c.op.max()) + 1), pairs % (int(c.op.max()) + 1))
    return SpanGraph(tuple(codes.names), calls, edges, has_status, paths), row[entry_of]


def _last_of(call: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Per row, whether it is the latest-starting row of its `call` (ties: the later row)."""
    last = np.zeros(call.size, dtype=bool)
    if call.size == 0:
        return last
    order = np.lexsort((np.arange(call.size), at, call))
    ends = np.ones(order.size, dtype=bool)
    ends[:-1] = call[order][1:] != call[order][:-1]
    last[order[ends]] = True
    return last & (call >= 0)


def _edges(
    c: _Spans, exit_: np.ndarray, cross: np.ndarray, self_ms: np.ndarray, own_self: np.ndarray, call_of: np.ndarray
) -> EdgeCalls:
    """Calls seen from the caller: each client span, and each cross-service span without one.

    `call_of` maps each span to the row of the service call it belongs to.
    """
    n = c.svc.size
    child = np.nonzero(cross)[0]
    callee_span = np.full(n, -1, dtype=np.int64)
    callee_span[c.parent[child]] = child
    answered = exit_ & (callee_span >= 0)
    callee_of = np.where(callee_span >= 0, c.svc[np.where(callee_span >= 0, callee_span, 0)], -1)
    # A client span that was never answered names its callee by a peer attribute, or by what
    # the same operation of the same service called when it was answered.
    learned = np.full(int(c.op.max()) + 1, -1, dtype=np.int64)
    learned[c.op[answered]] = callee_of[answered]
    unanswered = exit_ & (callee_span < 0)
    callee_of = np.where(unanswered, np.where(c.peer >= 0, c.peer, learned[c.op]), callee_of)
    x = np.nonzero(exit_ & (callee_of >= 0) & (callee_of != c.svc))[0]
    # Cross-service spans whose parent is not a client span: the callee's span is all there is.
    direct = child[~exit_[c.parent[child]]]
    served = np.concatenate([callee_span[x], direct])  # the callee's entry span of each call, -1 for none

    def of_callee(values: np.ndarray) -> np.ndarray:
        return np.where(served >= 0, values[np.where(served >= 0, served, 0)], np.nan)

    call = np.concatenate([call_of[x], call_of[c.parent[direct]]])
    at = np.concatenate([c.start[x], c.start[direct]])
    return EdgeCalls(
        caller=np.concatenate([c.svc[x], c.svc[c.parent[direct]]]),
        callee=np.concatenate([callee_of[x], c.svc[direct]]),
        at=at,
        callee_at=of_callee(c.start),
        latency_ms=np.concatenate([c.dur[x], c.dur[direct]]),
        network_ms=np.concatenate([np.where(answered[x], self_ms[x], np.nan), np.full(direct.size, np.nan)]),
        callee_ms=of_callee(c.dur),
        callee_self_ms=of_callee(own_self),
        failed=np.concatenate([c.err[x], c.err[direct]]),
        unanswered=np.concatenate([unanswered[x], np.zeros(direct.size, dtype=bool)]),
        call=call,
        last=_last_of(call, at),
        answer=np.where(served >= 0, call_of[np.where(served >= 0, served, 0)], -1),
    )


def _empty(codes: _Codes, has_status: bool) -> SpanGraph:
    i = np.zeros(0, dtype=np.int64)
    f = np.zeros(0)
    b = np.zeros(0, dtype=bool)
    return SpanGraph(
        tuple(codes.names),
        ServiceCalls(i, i, i, f, f, f, b, b, i),
        EdgeCalls(i, i, f, f, f, f, f, f, b, b, i, b, i),
        has_status,
    )
