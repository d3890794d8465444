"""Synthetic traces along a call graph, with a fault that shows the way it does in real spans.

Each request walks the call graph from the root: every call is a client span in
the caller and, unless the callee is down, a server span in the callee that
starts after half the network time and lasts the callee's own work plus its
calls out. Network delay into a service lengthens the client spans of the
calls into it and leaves its server spans alone; a starved caller lengthens
its own client spans of every call it makes; more own work lengthens its
server spans; a failing service errors its server spans, and the error
surfaces up the call chain; a service whose answers its callers cannot use
(a wrong return value, an exception they swallow) ends their calls there, and
one that answers wrongly makes its callers raise errors of their own; a
service that is down leaves its callers' client
spans errored with no server span under them; one that writes no spans (a
vendor API) is seen only in its callers' client spans, named by `peer.service`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rootward.bundle.write import write_alerts, write_incident, write_topology, write_traces
from rootward.domain.alert import Alert, Severity
from rootward.domain.incident import IncidentMeta
from rootward.domain.telemetry import Span, SpanKind
from rootward.domain.topology import Entity, Topology

FIRED_AT = datetime(2026, 11, 2, 14, 30, tzinfo=UTC)
ONSET = FIRED_AT - timedelta(minutes=3)
BASELINE = (ONSET - timedelta(minutes=20), ONSET)
DURING = (ONSET, FIRED_AT)


@dataclass
class Phase:
    """How the system behaves in one stretch of time."""

    own_ms: Mapping[str, float] = field(default_factory=dict)  # own work per call; default 2 ms
    network_ms: Mapping[str, float] = field(default_factory=dict)  # delay on the network into a service
    client_ms: Mapping[str, float] = field(default_factory=dict)  # a starved caller: more time on each call it makes
    failing: frozenset[str] = frozenset()  # errors originate in these services' spans
    down: frozenset[str] = frozenset()  # these services answer no call
    inner: Mapping[str, float] = field(default_factory=dict)  # share of a service's calls that run an inner step
    kind: bool = True  # whether spans say client/server (many tracers do not)
    status: bool = True  # whether spans carry a status
    stops_after: frozenset[str] = frozenset()  # callers make no further calls once one of these answered
    wrong_answers: frozenset[str] = frozenset()  # these answer fine, but their callers raise on what they get
    spanless: frozenset[str] = frozenset()  # these write no spans (a vendor API): callers name them by peer.service
    hosts: Mapping[str, str] = field(default_factory=dict)  # service -> the node it runs on
    host_ms: Mapping[str, float] = field(default_factory=dict)  # delay on a node's network: calls crossing it


class _Trace:
    def __init__(self, trace_no: int, phase: Phase, rng: random.Random) -> None:
        self.trace_id = f"{trace_no:032x}"
        self.phase = phase
        self.rng = rng
        self.spans: list[Span] = []
        self._next = 0

    def span_id(self) -> str:
        self._next += 1
        return f"{self._next:016x}"

    def serve(
        self, service: str, at: datetime, parent: str | None, calls: Mapping[str, Sequence[str]]
    ) -> tuple[float, bool]:
        """The server span of `service` and everything under it; returns (duration, errored)."""
        own = self.phase.own_ms.get(service, 2.0) * self.rng.uniform(0.8, 1.2)
        sid = self.span_id()
        t = at + timedelta(milliseconds=own / 2)
        failed = service in self.phase.failing
        index = len(self.spans)
        if self.rng.random() < self.phase.inner.get(service, 0.0):
            kind: SpanKind | None = "internal" if self.phase.kind else None
            self.spans.append(Span(self.trace_id, self.span_id(), service, t, own / 4, sid, None, kind, "inner step"))
        for callee in calls.get(service, ()):
            ms, err = self.call(service, callee, t, sid, calls)
            t += timedelta(milliseconds=ms)
            failed = failed or err
            if callee in self.phase.stops_after:  # an answer the caller cannot use: it gives up here
                break
            if callee in self.phase.wrong_answers:  # the caller raises on the answer: the error is its own span's
                failed = True
                break
        total = (t - at).total_seconds() * 1000 + own / 2
        status = ("error" if failed else "ok") if self.phase.status else None
        kind: SpanKind | None = "server" if self.phase.kind else None
        self.spans.insert(
            index, Span(self.trace_id, sid, service, at, total, parent, status, kind, f"{service}/handle")
        )
        return total, failed

    def call(
        self, caller: str, callee: str, at: datetime, parent: str, calls: Mapping[str, Sequence[str]]
    ) -> tuple[float, bool]:
        """A client span of `caller` calling `callee`, and the callee's server span under it."""
        net = 0.5 + self.phase.network_ms.get(callee, 0.0) * self.rng.uniform(0.9, 1.1)
        net += self.phase.client_ms.get(caller, 0.0) * self.rng.uniform(0.9, 1.1)
        ends = {self.phase.hosts.get(caller), self.phase.hosts.get(callee)}
        if len(ends) == 2:  # a call between two nodes crosses both their networks
            net += sum(self.phase.host_ms.get(h, 0.0) for h in ends if h) * self.rng.uniform(0.9, 1.1)
        cid = self.span_id()
        index = len(self.spans)
        attributes: dict[str, str] = {}
        if callee in self.phase.down:
            ms, failed = 1.0 + net, True
        elif callee in self.phase.spanless:  # its work is inside the client span, and only there
            ms = net + self.phase.own_ms.get(callee, 2.0) * self.rng.uniform(0.8, 1.2)
            failed, attributes = callee in self.phase.failing, {"peer.service": callee}
        else:
            served, failed = self.serve(callee, at + timedelta(milliseconds=net / 2), cid, calls)
            ms = served + net
        status = ("error" if failed else "ok") if self.phase.status else None
        kind: SpanKind | None = "client" if self.phase.kind else None
        span = Span(self.trace_id, cid, caller, at, ms, parent, status, kind, f"call {callee}", attributes=attributes)
        self.spans.insert(index, span)
        return ms, failed


def request(
    trace_no: int, at: datetime, root: str, calls: Mapping[str, Sequence[str]], phase: Phase, rng: random.Random
) -> list[Span]:
    trace = _Trace(trace_no, phase, rng)
    trace.serve(root, at, None, calls)
    return trace.spans


def incident_spans(
    calls: Mapping[str, Sequence[str]],
    root: str,
    before: Phase,
    after: Phase,
    *,
    per_side: int = 60,
    seed: int = 7,
) -> list[Span]:
    """`per_side` requests spread over the baseline, then as many after the onset."""
    rng = random.Random(seed)
    out: list[Span] = []
    for side, phase, (lo, hi) in ((0, before, BASELINE), (1, after, DURING)):
        step = (hi - lo) / (per_side + 1)
        for i in range(per_side):
            out += request(side * per_side + i, lo + step * (i + 1), root, calls, phase, rng)
    return out


def write_traced_bundle(root: Path, spans: Sequence[Span], calls: Mapping[str, Sequence[str]]) -> Path:
    """A bundle of an alert on the root of `calls`, its topology and `spans`: no metrics, logs or changes."""
    root.mkdir(parents=True)
    meta = IncidentMeta("traced-01", "Front latency", FIRED_AT, FIRED_AT - timedelta(minutes=30), FIRED_AT)
    write_incident(root, meta)
    top = next(iter(calls))
    write_alerts(root, [Alert("fp1", "HighLatency", top, Severity.P1, "firing", FIRED_AT, {"service": top})])
    names = list(dict.fromkeys([*calls, *(c for cs in calls.values() for c in cs)]))
    write_topology(root, Topology({n: Entity(n, depends_on=tuple(calls.get(n, ()))) for n in names}))
    write_traces(root, spans)
    return root
