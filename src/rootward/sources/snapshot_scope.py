"""Which entities a live snapshot asks the metric source about, given the alerts and the topology.

A live source holds thousands of series; the snapshot wants the ones that can
explain the alerts: the alerting entities themselves, everything they depend
on (a cause must lie on a dependency path), the hosts they run on, then their
direct callers (whose errors stand in for a silent callee) and the rest of the
two-hop neighbourhood, in that order, up to a bound. Then, while the bound
allows, the entities the topology knows but gives no call edge (services
known only from their scrape targets): their path to the alert is not known,
which is not the same as absent, and the investigation ranks them on their
own evidence with a gap that says so. Without a topology only the alerting
entities are asked: there is nothing else to name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rootward.domain.topology import Topology

MAX_ENTITIES = 30
HOST_KINDS = frozenset({"host", "node", "vm", "machine", "instance"})


def entity_kind(kind: str | None) -> str:
    """`host` for the topology kinds that are machines, else `service` (what metric templates are asked for)."""
    return "host" if (kind or "").lower() in HOST_KINDS else "service"


@dataclass(frozen=True)
class ScopedEntity:
    name: str
    kind: str  # the topology's kind, "" when the topology does not know it
    alerting: bool


def snapshot_entities(
    alerting: Sequence[str], topology: Topology | None, limit: int = MAX_ENTITIES
) -> list[ScopedEntity]:
    focus = list(dict.fromkeys(alerting))
    entities = topology.entities if topology is not None else {}
    down: dict[str, list[str]] = {name: list(e.dependencies) for name, e in entities.items()}
    up: dict[str, list[str]] = {}
    for name, targets in down.items():
        for target in targets:
            up.setdefault(target, []).append(name)
    order: list[str] = list(focus)
    order += _walk(focus, down, hops=None)  # everything they depend on, transitively
    order += [c for f in focus for c in up.get(f, [])]  # direct callers
    order += _walk(focus, {n: down.get(n, []) + up.get(n, []) for n in set(down) | set(up)}, hops=2)
    calls = {n for name, e in entities.items() if e.depends_on for n in (name, *e.depends_on)}
    order += [n for n, e in entities.items() if n not in calls and entity_kind(e.kind) == "service"]
    picked = list(dict.fromkeys(order))[: max(limit, len(focus))]
    return [ScopedEntity(n, entities[n].kind if n in entities else "", n in focus) for n in picked]


def _walk(start: Sequence[str], edges: dict[str, list[str]], hops: int | None) -> list[str]:
    """Breadth-first from `start` along `edges` (at most `hops` steps; None: all), start excluded."""
    seen = set(start)
    frontier = list(start)
    out: list[str] = []
    depth = 0
    while frontier and (hops is None or depth < hops):
        nxt: list[str] = []
        for node in frontier:
            for other in edges.get(node, []):
                if other not in seen:
                    seen.add(other)
                    out.append(other)
                    nxt.append(other)
        frontier = nxt
        depth += 1
    return out
