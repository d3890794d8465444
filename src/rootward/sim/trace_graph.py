"""The call graph requests follow in a simulated topology, and its healthy timings.

Traces need more than `depends_on`: which entities are instrumented, which
operations each one serves, which downstream operation each of them calls, and
how long a healthy call takes. Services make calls and serve them; databases,
caches, queues and object stores serve them (instrumented server-side) but call
nothing; external APIs are seen only through their callers' client spans; hosts,
networks and resolvers are never in a request path as spans (a DNS lookup is
not traced), so a fault there shows only through what runs on or calls them.

Every endpoint always calls the same downstream endpoints, as a real handler
does, so the spans of one operation are comparable before and after a fault.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rootward.sim.topologies import SimEntity, SimTopology

# Families whose entities emit server spans, and those only seen in their callers' client spans.
SERVING_FAMILIES = frozenset({"service", "database", "cache", "queue", "storage"})
CLIENT_ONLY_FAMILIES = frozenset({"external"})
_DATA_OPERATIONS: dict[str, tuple[tuple[str, bool], ...]] = {
    "database": (("SELECT", False), ("INSERT", True), ("UPDATE", True)),
    "cache": (("GET", False), ("SET", True)),
    "queue": (("publish", True), ("poll", False)),
    "storage": (("GetObject", False), ("PutObject", True)),
    "external": (("POST /v1/requests", True), ("GET /v1/status", False)),
}
_NOUNS = ("items", "orders", "status", "search", "profile", "batch", "summary", "events")
_BATCH_KINDS = frozenset({"batch", "job"})  # run now and then, not on every user request
_ROOT_WEIGHT_BATCH = 0.15
_FAN_OUT = 0.4  # chance an endpoint calls a given dependency (each is called by some endpoint)


@dataclass(frozen=True)
class Call:
    """One downstream call an endpoint makes: the callee, and which of its operations it may ask for."""

    callee: str
    operations: tuple[int, ...]  # one is picked per request, so every operation of a callee gets traffic


@dataclass(frozen=True)
class Operation:
    name: str
    write: bool  # changes state (a disk that is full fails these, reads still work)
    calls: tuple[Call, ...]
    self_ms: float  # median time spent in the entity's own code per call (healthy)


@dataclass(frozen=True)
class TracedEntity:
    name: str
    family: str
    software: str
    serves: bool  # emits server spans (False: an external API, seen only from its callers)
    span_kind: str  # kind of its server spans when it is a root: server, or consumer for a queue reader
    host: str
    operations: tuple[Operation, ...]


@dataclass(frozen=True)
class CallGraph:
    entities: dict[str, TracedEntity]
    roots: tuple[tuple[str, float], ...]  # (entity, weight): where requests enter
    hop_ms: dict[tuple[str, str], float]  # healthy one-way network time of each caller -> callee edge

    def reach(self, target: str) -> float:
        """Share of entering requests whose call tree visits `target` (weights x operations)."""
        total = sum(w for _, w in self.roots)
        hit = 0.0
        for root, weight in self.roots:
            ops = self.entities[root].operations
            hit += weight * sum(self._visits(root, i, target, ()) for i in range(len(ops))) / len(ops)
        return hit / total if total else 0.0

    def spans_per_request(self) -> float:
        """Expected spans of one entering request (healthy), to size the sample to the span budget."""
        total = sum(w for _, w in self.roots)
        if not total:
            return 0.0
        return sum(w * self._mean_spans(r, ()) for r, w in self.roots) / total

    def _mean_spans(self, name: str, path: tuple[str, ...]) -> float:
        entity = self.entities[name]
        if not entity.serves:
            return 0.0
        if name in path:
            return 1.0
        out = 0.0
        for op in entity.operations:
            out += 1.0 + sum(1.0 + self._mean_spans(c.callee, (*path, name)) for c in op.calls)
        return out / len(entity.operations)

    def _visits(self, name: str, op: int, target: str, path: tuple[str, ...]) -> bool:
        if name == target:
            return True
        if name in path:
            return False
        calls = self.entities[name].operations[op].calls
        return any(any(self._visits(c.callee, i, target, (*path, name)) for i in c.operations) for c in calls)


def _traced(e: SimEntity) -> bool:
    return e.family in SERVING_FAMILIES or e.family in CLIENT_ONLY_FAMILIES


def callees(topo: SimTopology, e: SimEntity) -> tuple[str, ...]:
    """What a request handled by `e` may call: only services call, and only traced entities."""
    if e.family != "service":
        return ()
    return tuple(d for d in e.depends_on if _traced(topo.get(d)))


def _self_ms(e: SimEntity, rng: random.Random) -> float:
    u = rng.uniform
    if e.family == "service":
        return u(0.4, 2.5) if e.kind in ("ingress", "proxy", "gateway", "loadbalancer") else u(3.0, 30.0)
    return {"database": u(1.0, 8.0), "cache": u(0.2, 1.5), "queue": u(1.0, 6.0), "storage": u(3.0, 20.0)}.get(
        e.family, u(40.0, 250.0)
    )


def _service_operations(
    topo: SimTopology, e: SimEntity, op_counts: dict[str, int], rng: random.Random
) -> tuple[Operation, ...]:
    """A service's endpoints: each calls some of its dependencies (at least one), all are called by some."""
    deps = callees(topo, e)
    n = op_counts[e.name]
    chosen: list[list[str]] = [[d for d in deps if rng.random() < _FAN_OUT] for _ in range(n)]
    for d in deps:
        if not any(d in c for c in chosen):
            chosen[rng.randrange(n)].append(d)
    for targets in chosen:
        if deps and not targets:
            targets.append(rng.choice(deps))
    base = _self_ms(e, rng)
    ops = []
    for i, targets in enumerate(chosen):
        write = i % 2 == 1
        name = f"{'POST' if write else 'GET'} /api/{_NOUNS[(i + len(e.name)) % len(_NOUNS)]}"
        calls = tuple(Call(d, _callee_operations(topo, e, d, write, op_counts)) for d in deps if d in targets)
        ops.append(Operation(name, write, calls, base * rng.uniform(0.6, 1.6)))
    return tuple(ops)


def _callee_operations(
    topo: SimTopology, caller: SimEntity, callee: str, write: bool, op_counts: dict[str, int]
) -> tuple[int, ...]:
    """Which operations of `callee` this endpoint asks for (repeats weight the pick): a queue's reader
    polls and its writer publishes; an endpoint that writes writes its stores more often than one that reads."""
    family = topo.get(callee).family
    table = _DATA_OPERATIONS.get(family)
    if table is None or family == "external":
        return tuple(range(op_counts[callee]))
    if family == "queue":
        consumer = caller.attributes.get("role") == "consumer"
        return tuple(i for i, (_, w) in enumerate(table) if w != consumer)
    reads = tuple(i for i, (_, w) in enumerate(table) if not w)
    writes = tuple(i for i, (_, w) in enumerate(table) if w)
    return reads + writes * 2 if write else reads * 3 + writes  # a read endpoint still writes now and then


def build_call_graph(topo: SimTopology, rng: random.Random) -> CallGraph:
    """The instrumented call graph of `topo`, with healthy timings drawn from `rng`."""
    traced = [e for e in topo.entities if _traced(e)]
    services = [e for e in traced if e.family == "service"]
    # Every entity's endpoint count first, so a caller can pick one of a callee's endpoints.
    op_counts = {e.name: len(_DATA_OPERATIONS[e.family]) for e in traced if e.family != "service"}
    op_counts.update({e.name: (1 if not callees(topo, e) else rng.randint(2, 3)) for e in services})
    entities: dict[str, TracedEntity] = {}
    for e in traced:
        host = e.runs_on[0] if e.runs_on else ""
        if e.family == "service":
            ops = _service_operations(topo, e, op_counts, rng)
            kind = "consumer" if e.attributes.get("role") == "consumer" else "server"
        else:
            base = _self_ms(e, rng)
            ops = tuple(Operation(n, w, (), base * rng.uniform(0.6, 1.6)) for n, w in _DATA_OPERATIONS[e.family])
            kind = "server"
        entities[e.name] = TracedEntity(e.name, e.family, e.software, e.family in SERVING_FAMILIES, kind, host, ops)
    called = {d for e in services for d in callees(topo, e)}
    roots = tuple(
        (e.name, _ROOT_WEIGHT_BATCH if e.kind.lower() in _BATCH_KINDS else 1.0)
        for e in services
        if e.name not in called
    )
    hop_ms: dict[tuple[str, str], float] = {}
    for e in services:
        for d in callees(topo, e):
            callee = entities[d]
            if callee.family in CLIENT_ONLY_FAMILIES:
                hop_ms[(e.name, d)] = rng.uniform(5.0, 40.0)
            elif callee.host and callee.host == entities[e.name].host:
                hop_ms[(e.name, d)] = rng.uniform(0.03, 0.12)
            else:
                hop_ms[(e.name, d)] = rng.uniform(0.15, 0.8)
    return CallGraph(entities, roots, hop_ms)
