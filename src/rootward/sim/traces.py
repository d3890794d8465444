"""Per-request traces of a simulated incident: `traces.jsonl` of the bundle.

Requests enter at the topology's front services (and, under a traffic surge,
at the surging service) all through the bundle's window, before and after the
onset, and each becomes a tree of server spans (the callee's own work) and
client spans (the caller waiting on it) along the call graph
(`sim/trace_graph.py`). A span's duration is built bottom-up: a server span is
its own self time plus the client spans of the calls it makes; a client span
is the network there and back plus the callee's server span. The fault bends
one place in that tree (`sim/trace_faults.py`) and the rest follows: a slow
callee makes its callers slow, an error raised in a leaf surfaces in every
caller up to the root, a refused call has no server span at all.

Traces have their own `random.Random`, seeded from the scenario, so adding
them changes no other file of the bundle, and the same seed writes the same
spans. A bundle holds a sample of whole traces, at most `MAX_SPANS` spans.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from rootward.bundle.write import traces_bytes
from rootward.domain.telemetry import Span
from rootward.sim.scenario import Scenario
from rootward.sim.trace_faults import Bends, Failure, Link, bends_for
from rootward.sim.trace_graph import Call, CallGraph, TracedEntity, build_call_graph

MAX_SPANS = 4000
# The simulator's mark on a span that answered wrongly: what the injector knows, no tracer records.
WRONG_ANSWER_KEY = "sim.wrong_answer"
_FILL = 0.8  # share of the span budget the healthy sample is sized for (a surge or retries add more)
_MAX_REQUESTS = 1500
_BEFORE_S = 1800  # traces start this long before the onset at most: an even before/after split
_MAX_DEPTH = 12
_CLIENT_TIMEOUT_MS = 1000.0  # a client gives up on a call whose packets keep getting lost
_RTO_MS = 200.0  # Linux's minimum TCP retransmission timeout, doubled on each retry
_PACKETS_PER_LEG = 2
_RESET_PER_LOSS = 0.5  # a flapping link resets this share of the connections it drops packets of
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

PodOf = Callable[[str], str]


@dataclass
class _Request:
    """The spans of one trace as they are made."""

    trace_id: str
    spans: list[Span] = field(default_factory=list)


@dataclass(frozen=True)
class _Outcome:
    end: float  # epoch seconds
    error: bool
    wrong: bool = False  # answered, but with a value its caller cannot use


def _when(t: float) -> datetime:
    return _EPOCH + timedelta(microseconds=round(t * 1_000_000))


class _Tracer:
    """Makes the spans of one scenario's requests; every random draw comes from `rng`, in order."""

    def __init__(self, sc: Scenario, graph: CallGraph, bends: Bends, rng: random.Random, pod_of: PodOf | None):
        self.sc, self.graph, self.bends, self.rng = sc, graph, bends, rng
        self.pod_of = pod_of if sc.kubernetes else None

    def _jitter(self, sigma: float) -> float:
        return math.exp(self.rng.gauss(0.0, sigma))

    def _span_id(self) -> str:
        return f"{self.rng.getrandbits(64):016x}"

    def _emit(
        self,
        req: _Request,
        entity: TracedEntity,
        span_id: str,
        parent: str | None,
        start: float,
        end: float,
        *,
        operation: str,
        kind: str,
        error: bool,
        attributes: dict[str, Any],
    ) -> None:
        req.spans.append(
            Span(
                trace_id=req.trace_id,
                span_id=span_id,
                service=entity.name,
                start=_when(start),
                duration_ms=round(max(0.0, end - start) * 1000.0, 3),
                parent_id=parent,
                status="error" if error else "ok",
                kind=kind,  # type: ignore[arg-type]
                operation=operation,
                pod=self.pod_of(entity.name) if self.pod_of else "",
                host=entity.host,
                attributes=attributes,
            )
        )

    def request(self, root: str, op: int, t: float) -> list[Span]:
        req = _Request(f"{self.rng.getrandbits(128):032x}")
        entity = self.graph.entities[root]
        self._serve(req, entity, op, t, None, (), entity.span_kind)
        return req.spans

    def _own_failure(self, name: str, write: bool, t: float) -> Failure | None:
        f = self.bends.fail.get(name)
        if f is None or (f.writes_only and not write):
            return None
        return f if self.rng.random() < f.chance(t) else None

    def _self_segments(self, entity: TracedEntity, op_self_ms: float, n: int, t: float) -> list[float]:
        """The entity's own time (seconds) before, between and after its `n` calls."""
        slow = self.bends.slow.get(entity.name)
        total = op_self_ms * self._jitter(0.3) * (slow(t) if slow else 1.0)
        pause = self.bends.pauses.get(entity.name)
        if pause is not None and self.rng.random() < pause(t):
            total += self.rng.uniform(100.0, 1200.0)  # a stop-the-world collection
        weights = [0.3 + self.rng.random() for _ in range(n + 1)]
        scale = total / 1000.0 / sum(weights)
        return [w * scale for w in weights]

    def _serve(
        self,
        req: _Request,
        entity: TracedEntity,
        op_index: int,
        start: float,
        parent: str | None,
        path: tuple[str, ...],
        kind: str = "server",
    ) -> _Outcome:
        op = entity.operations[op_index]
        span_id = self._span_id()
        wrongly = self.bends.wrong.get(entity.name)
        # A wrong answer is decided where it is made: this call's code took another path and returns a
        # value its caller cannot use (the span records nothing of it; the simulator marks it for tools).
        wrong = wrongly is not None and self.rng.random() < wrongly(start)
        failure = self._own_failure(entity.name, op.write, start)
        fail_at = self.rng.randint(0, len(op.calls)) if failure else -1
        segments = self._self_segments(entity, op.self_ms, len(op.calls), start)
        t = start + segments[0]
        surfaced = False
        message = failure.message if failure else ""
        for i, call in enumerate(op.calls):
            if i == fail_at:
                break
            pool = self.bends.pool.get(entity.name)
            if pool is not None and pool.callee == call.callee:
                t += pool.wait_ms(t) * self._jitter(0.3) / 1000.0
                if self.rng.random() < pool.timeout(t):
                    failure, message = Failure(lambda _: 1.0, pool.message), pool.message
                    break
            outcome = self._call(req, entity, call, t, span_id, (*path, entity.name))
            t = outcome.end
            if outcome.error:
                surfaced, message = True, message or f"call to {call.callee} failed"
                break
            if outcome.wrong:
                failure = Failure(lambda _: 1.0, "cannot use the answer: unexpected null")  # raised in its own code
                message = failure.message
                break
            if i + 1 < len(op.calls):
                t += segments[i + 1]
        end = t + segments[-1]
        error = failure is not None or surfaced
        attributes: dict[str, Any] = {}
        if entity.family == "service":
            status_code = failure.status_code if failure else 500 if surfaced else 200
            attributes["http.status_code"] = status_code
        else:
            attributes.update(_store_attributes(entity, op.name))
        if error:
            attributes["error.message"] = message
        elif wrong:
            attributes[WRONG_ANSWER_KEY] = True
        self._emit(
            req, entity, span_id, parent, start, end, operation=op.name, kind=kind, error=error, attributes=attributes
        )
        return _Outcome(end, error, wrong=wrong and not error)

    def _leg(self, links: list[Link], t: float) -> tuple[float, bool]:
        """(ms lost to retransmissions, connection reset) on one leg of a call through lossy links.

        Each of a leg's packets is lost with the links' loss ratio and resent
        after a doubling timeout; a flapping link also resets connections.
        """
        if not links:
            return 0.0, False
        # A packet crossing several faulty links survives only if none drops it.
        loss = links[0].loss(t) if len(links) == 1 else 1.0 - math.prod(1.0 - x.loss(t) for x in links)
        if loss <= 0:
            return 0.0, False
        lost = 0.0
        for _ in range(_PACKETS_PER_LEG):
            retry = 0
            while retry < 4 and self.rng.random() < loss:
                lost += _RTO_MS * 2**retry
                retry += 1
        return lost, self.rng.random() < loss * _RESET_PER_LOSS

    def _call(
        self, req: _Request, caller: TracedEntity, call: Call, start: float, parent: str, path: tuple[str, ...]
    ) -> _Outcome:
        callee = self.graph.entities[call.callee]
        op_index = self.rng.choice(call.operations)
        op = callee.operations[op_index]
        span_id = self._span_id()
        kind = "producer" if callee.family == "queue" and op.write else "client"
        attributes: dict[str, Any] = {"peer.service": callee.name}
        hop = self.graph.hop_ms[(caller.name, callee.name)] / 1000.0

        def fail_fast(message: str, took_ms: float) -> _Outcome:
            end = start + took_ms / 1000.0
            attributes["error.message"] = message
            self._emit(
                req,
                caller,
                span_id,
                parent,
                start,
                end,
                operation=op.name,
                kind=kind,
                error=True,
                attributes=attributes,
            )
            return _Outcome(end, True)

        lookup = self.bends.lookup.get(caller.name)
        if lookup is not None and self.rng.random() < lookup.chance(start):
            return fail_fast(f"{lookup.message} resolving {callee.name}", lookup.duration_ms * self._jitter(0.3))
        refusal = self.bends.refuse.get(callee.name)
        if refusal is not None and self.rng.random() < refusal.chance(start):
            return fail_fast(refusal.message, 2 * hop * 1000.0 + refusal.duration_ms * self._jitter(0.3))
        if callee.name in path or len(path) >= _MAX_DEPTH:
            return fail_fast("call cycle: request abandoned", 0.0)
        links = [x for x in self.bends.links if (caller.name in x.behind) != (callee.name in x.behind)]
        delay = sum(x.delay_ms(start) for x in links) * self.rng.uniform(0.8, 1.2) / 1000.0 if links else 0.0
        lost_in, reset = self._leg(links, start)
        if lost_in >= _CLIENT_TIMEOUT_MS:
            return fail_fast("i/o timeout (tcp retransmits)", _CLIENT_TIMEOUT_MS)
        if reset:
            return fail_fast("read: connection reset by peer", hop * 1000.0 + lost_in)
        arrive = start + hop * self._jitter(0.2) + delay / 2 + lost_in / 1000.0
        if callee.serves:
            outcome = self._serve(req, callee, op_index, arrive, span_id, path)
        else:
            outcome = _Outcome(arrive + op.self_ms * self._jitter(0.35) / 1000.0, False)
        lost_out, reset = self._leg(links, outcome.end)
        end = outcome.end + hop * self._jitter(0.2) + delay / 2 + min(lost_out, _CLIENT_TIMEOUT_MS) / 1000.0
        lost = "i/o timeout (tcp retransmits)" if lost_out >= _CLIENT_TIMEOUT_MS else ""
        lost = "read: connection reset by peer" if reset else lost
        error = outcome.error or bool(lost)
        wrong = outcome.wrong and not error
        if (callee.family == "service" or not callee.serves) and not lost:
            attributes["http.status_code"] = 500 if outcome.error else 200
        if error:
            attributes["error.message"] = "server error" if outcome.error else lost
        self._emit(
            req, caller, span_id, parent, start, end, operation=op.name, kind=kind, error=error, attributes=attributes
        )
        return _Outcome(end, error, wrong=wrong)


def _store_attributes(entity: TracedEntity, operation: str) -> dict[str, str]:
    """OpenTelemetry's semantic-convention keys for a data store's server span."""
    if entity.family == "queue":
        return {"messaging.system": entity.software, "messaging.operation": operation}
    if entity.family == "storage":
        return {"rpc.system": entity.software, "rpc.method": operation}
    return {"db.system": entity.software, "db.operation": operation}


def _arrivals(
    sc: Scenario, graph: CallGraph, bends: Bends, rng: random.Random, budget: int
) -> list[tuple[float, str, int]]:
    """(time, entry entity, operation) of every sampled request, oldest first, at a steady rate.

    The rate is steady through the onset so that call volume before and after
    compares; only a traffic surge adds requests, entering where it enters.
    """
    per_request = graph.spans_per_request()
    if not graph.roots or per_request <= 0:
        return []
    lo, hi = float(max(sc.window_start, sc.onset - _BEFORE_S)), float(sc.window_end - 30)
    rate = min(_MAX_REQUESTS, budget * _FILL / per_request) / (hi - lo)
    names = [r for r, _ in graph.roots]
    weights = [w for _, w in graph.roots]
    out: list[tuple[float, str, int]] = []
    t = lo + rng.expovariate(rate)
    while t < hi:
        root = rng.choices(names, weights)[0]
        out.append((t, root, rng.randrange(len(graph.entities[root].operations))))
        t += rng.expovariate(rate)
    if bends.surge is not None and bends.surge[0] in graph.entities:
        name, extra = bends.surge
        peak = max(extra(x) for x in range(int(lo), int(hi), 30))
        surge_rate = rate * (graph.reach(name) or 0.2) * peak
        t = lo + rng.expovariate(surge_rate) if peak > 0 else hi
        while t < hi:
            if rng.random() < extra(t) / peak:
                out.append((t, name, rng.randrange(len(graph.entities[name].operations))))
            t += rng.expovariate(surge_rate)
    return sorted(out)


def _sample(traces: list[list[Span]], budget: int) -> list[list[Span]]:
    """Keep whole traces, evenly spread over the window, until the spans fit the budget."""
    keep = traces
    while sum(len(t) for t in keep) > budget:
        share = budget / sum(len(t) for t in keep) * 0.97
        keep = [t for i, t in enumerate(keep) if math.floor((i + 1) * share) > math.floor(i * share)]
    return keep


def trace_spans(sc: Scenario, pod_of: PodOf | None = None, max_spans: int = MAX_SPANS) -> list[Span]:
    """The sampled spans of the scenario's requests, in request order."""
    rng = random.Random(f"rootward-sim-traces/{sc.id}/{sc.topology.name}/{sc.fault_type}/{sc.cause.name}/{sc.onset}")
    graph = build_call_graph(sc.topology, rng)
    bends = bends_for(sc, rng)
    tracer = _Tracer(sc, graph, bends, rng, pod_of)
    traces = [tracer.request(root, op, t) for t, root, op in _arrivals(sc, graph, bends, rng, max_spans)]
    return [span for trace in _sample(traces, max_spans) for span in trace]


def traces_jsonl(sc: Scenario, pod_of: PodOf | None = None, max_spans: int = MAX_SPANS) -> str:
    """`traces.jsonl` of the scenario's bundle."""
    return traces_bytes(trace_spans(sc, pod_of, max_spans)).decode("utf-8")
