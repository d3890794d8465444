"""The causal dependency graph: entities and "source needs target" edges with provenance.

Every edge keeps one claim per truth layer (Kubernetes, inventory, topology
files, operators, learned co-occurrence) so that a later reader can see who
said what, and its effective confidence is the highest live claim. Claims
expire (`valid_until`) unless their layer re-seeds them, so a service deleted
from the CMDB stops shaping predictions without anyone cleaning up.

Faults flow against the edges: when a target fails, its *dependents* (the
sources of edges into it) see symptoms. `dependents()` is therefore the
direction every prediction walks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import networkx as nx

from rootward.domain.topology import Topology

RELATIONS: tuple[str, ...] = ("depends_on", "runs_on", "routes_via", "member_of")

# Default confidence of a claim by the layer that made it (the table).
LAYER_CONFIDENCE: dict[str, float] = {
    "kubernetes": 0.95,
    "inventory": 0.90,
    "cmdb": 0.90,
    "topology_file": 0.85,
    "prometheus": 0.85,  # targets and their labels: an inventory that only knows what is scraped
    "operator": 0.85,
    "traces": 0.90,  # observed calls; each claim's own confidence grows with its call count (call_edges.py)
    "learned": 0.75,
}
# Learned edges alone can never reach the confidence that authorises suppression.
LEARNED_CAP = 0.75
LEARNED_LAYER = "learned"


@dataclass(frozen=True)
class EdgeClaim:
    """One layer's statement that `source` needs `target`."""

    layer: str
    relation: str
    confidence: float
    observed_at: datetime
    valid_until: datetime | None = None
    note: str = ""

    def live_at(self, now: datetime) -> bool:
        return self.valid_until is None or self.valid_until >= now

    def to_record(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "relation": self.relation,
            "confidence": self.confidence,
            "observed_at": self.observed_at.isoformat(),
            "valid_until": self.valid_until.isoformat() if self.valid_until else None,
            "note": self.note,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> EdgeClaim:
        until = record.get("valid_until")
        return cls(
            layer=str(record["layer"]),
            relation=str(record["relation"]),
            confidence=float(record["confidence"]),
            observed_at=_as_datetime(record["observed_at"]),
            valid_until=_as_datetime(until) if until else None,
            note=str(record.get("note") or ""),
        )


@dataclass(frozen=True)
class EdgeView:
    source: str
    target: str
    relation: str
    confidence: float
    claims: tuple[EdgeClaim, ...] = field(default_factory=tuple)

    @property
    def layers(self) -> tuple[str, ...]:
        return tuple(c.layer for c in self.claims)


def _as_datetime(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class WorldGraph:
    """A networkx DiGraph with typed accessors; edge data hold the claims and their best merge."""

    def __init__(self) -> None:
        self.g: nx.DiGraph = nx.DiGraph()

    # --- entities -------------------------------------------------------
    def add_entity(self, name: str, kind: str = "unknown", attributes: dict[str, str] | None = None) -> None:
        """Add or update an entity; a known kind never gets overwritten by "unknown"."""
        if name in self.g:
            data = self.g.nodes[name]
            if kind != "unknown" or data.get("kind") in (None, "unknown"):
                data["kind"] = kind
            data.setdefault("attributes", {}).update(attributes or {})
        else:
            self.g.add_node(name, kind=kind, attributes=dict(attributes or {}))

    def has_entity(self, name: str) -> bool:
        return name in self.g

    def kind(self, name: str) -> str:
        return str(self.g.nodes[name].get("kind", "unknown")) if name in self.g else "unknown"

    def attributes(self, name: str) -> dict[str, str]:
        return dict(self.g.nodes[name].get("attributes", {})) if name in self.g else {}

    def entities(self) -> list[str]:
        return sorted(self.g.nodes)

    def __len__(self) -> int:
        return int(self.g.number_of_nodes())

    # --- edges ----------------------------------------------------------
    def add_claim(self, source: str, target: str, claim: EdgeClaim) -> None:
        """Record a layer's claim; the layer's previous claim on this edge is replaced (re-seed)."""
        if claim.relation not in RELATIONS:
            raise ValueError(f"unknown relation {claim.relation!r}; expected one of {RELATIONS}")
        if source == target:
            raise ValueError(f"self edge on {source!r}")
        if claim.layer == LEARNED_LAYER and claim.confidence > LEARNED_CAP:
            claim = EdgeClaim(
                claim.layer, claim.relation, LEARNED_CAP, claim.observed_at, claim.valid_until, claim.note
            )
        for name in (source, target):
            if name not in self.g:
                self.add_entity(name)
        if self.g.has_edge(source, target):
            claims: dict[str, EdgeClaim] = self.g.edges[source, target]["claims"]
        else:
            claims = {}
            self.g.add_edge(source, target, claims=claims)
        claims[claim.layer] = claim
        self._merge(source, target)

    def _merge(self, source: str, target: str) -> None:
        data = self.g.edges[source, target]
        best = max(data["claims"].values(), key=lambda c: (c.confidence, c.layer))
        data["confidence"] = best.confidence
        data["relation"] = best.relation

    def has_edge(self, source: str, target: str) -> bool:
        return bool(self.g.has_edge(source, target))

    def edge(self, source: str, target: str) -> EdgeView | None:
        if not self.g.has_edge(source, target):
            return None
        data = self.g.edges[source, target]
        claims = tuple(sorted(data["claims"].values(), key=lambda c: (-c.confidence, c.layer)))
        return EdgeView(source, target, data["relation"], data["confidence"], claims)

    def edges(self) -> Iterator[EdgeView]:
        for source, target in sorted(self.g.edges):
            view = self.edge(source, target)
            assert view is not None
            yield view

    def expire(self, now: datetime) -> list[tuple[str, str, str]]:
        """Drop claims past `valid_until`; an edge with no live claim disappears. Returns what went."""
        dropped: list[tuple[str, str, str]] = []
        for source, target, data in list(self.g.edges(data=True)):
            claims: dict[str, EdgeClaim] = data["claims"]
            for layer, claim in list(claims.items()):
                if not claim.live_at(now):
                    del claims[layer]
                    dropped.append((source, target, layer))
            if claims:
                self._merge(source, target)
            else:
                self.g.remove_edge(source, target)
        return dropped

    def dependents(self, name: str) -> list[str]:
        """Entities that need `name`: where its faults surface."""
        return sorted(self.g.predecessors(name)) if name in self.g else []

    def dependencies(self, name: str) -> list[str]:
        """Entities `name` needs: where its symptoms may come from."""
        return sorted(self.g.successors(name)) if name in self.g else []

    # --- seeding --------------------------------------------------------
    def seed_topology(
        self,
        topology: Topology,
        *,
        layer: str = "topology_file",
        now: datetime | None = None,
        ttl_s: float | None = None,
        confidence: float | None = None,
    ) -> int:
        """Merge a topology (file, bundle, live API) as one layer; returns the number of edge claims."""
        now = now or datetime.now(UTC)
        until = now + timedelta(seconds=ttl_s) if ttl_s else None
        conf = confidence if confidence is not None else LAYER_CONFIDENCE.get(layer, 0.85)
        for entity in topology.entities.values():
            self.add_entity(entity.name, entity.kind, dict(entity.attributes))
        count = 0
        for source, target, relation in topology.edges():
            if source == target:
                continue
            self.add_claim(source, target, EdgeClaim(layer, relation, conf, now, until))
            count += 1
        return count

    @classmethod
    def from_topology(cls, topology: Topology, *, layer: str = "topology_file") -> WorldGraph:
        graph = cls()
        graph.seed_topology(topology, layer=layer, now=datetime(1970, 1, 1, tzinfo=UTC))
        return graph

    # --- records (what the store persists) -------------------------------
    def entity_records(self) -> list[dict[str, Any]]:
        return [{"name": n, "kind": self.kind(n), "attributes": self.attributes(n)} for n in self.entities()]

    def claim_records(self) -> list[dict[str, Any]]:
        out = []
        for view in self.edges():
            for claim in view.claims:
                out.append({"source": view.source, "target": view.target, **claim.to_record()})
        return out

    @classmethod
    def from_records(cls, entities: Iterable[dict[str, Any]], claims: Iterable[dict[str, Any]]) -> WorldGraph:
        graph = cls()
        for row in entities:
            graph.add_entity(str(row["name"]), str(row.get("kind") or "unknown"), row.get("attributes") or {})
        for row in claims:
            graph.add_claim(str(row["source"]), str(row["target"]), EdgeClaim.from_record(row))
        return graph
