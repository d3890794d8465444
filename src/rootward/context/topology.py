"""The dependency subgraph an investigation looks at.

Edges point from a dependent to what it needs (`a -> b`: a calls, or runs on,
b), so faults flow against the edges: a fault in b surfaces in a. The
subgraph is every entity within `hops` of an alerting service (either
direction) plus the hosts its members run on.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx
from pydantic import BaseModel

from rootward.domain.evidence import EvidenceRef, topology_cite
from rootward.domain.topology import Topology


class TopologyEdge(BaseModel):
    source: str
    target: str
    relation: str  # depends_on | runs_on
    evidence: EvidenceRef


class Subgraph(BaseModel):
    focus: list[str]  # alerting services found in the topology
    entities: list[str]
    kinds: dict[str, str]
    edges: list[TopologyEdge]
    hops: int
    aliases: dict[str, tuple[str, ...]] = {}  # the host names an entity's address attributes give

    def graph(self) -> nx.DiGraph:
        g: nx.DiGraph = nx.DiGraph()
        g.add_nodes_from(self.entities)
        for e in self.edges:
            g.add_edge(e.source, e.target, relation=e.relation)
        return g

    def dependencies(self, entity: str) -> list[str]:
        return [e.target for e in self.edges if e.source == entity]

    def dependents(self, entity: str) -> list[str]:
        return [e.source for e in self.edges if e.target == entity]

    def edge(self, source: str, target: str) -> TopologyEdge | None:
        return next((e for e in self.edges if e.source == source and e.target == target), None)


def dependency_graph(topology: Topology) -> nx.DiGraph:
    g: nx.DiGraph = nx.DiGraph()
    for name, entity in topology.entities.items():
        g.add_node(name, kind=entity.kind, aliases=entity.aliases)
    for source, target, relation in topology.edges():
        g.add_edge(source, target, relation=relation)
    return g


def subgraph(topology: Topology, focus: Iterable[str], hops: int = 2, extra: Iterable[str] = ()) -> Subgraph:
    """Entities within `hops` of the focus (undirected), plus their hosts, plus `extra` entities.

    Focus services missing from the topology are kept as isolated nodes; when
    none is in the topology at all, the whole topology is the subgraph (we
    cannot tell what is near).
    """
    g = dependency_graph(topology)
    wanted = [f for f in dict.fromkeys(focus)]
    present = [f for f in wanted if f in g]
    undirected = g.to_undirected(as_view=True)
    members: set[str] = set()
    if not present:
        members = set(g.nodes)
    for node in present:
        members |= set(nx.single_source_shortest_path_length(undirected, node, cutoff=hops))
    members |= {f for f in wanted}
    members |= {x for x in extra}
    hosts = {t for m in list(members) if m in g for t in g.successors(m) if g.edges[m, t]["relation"] == "runs_on"}
    members |= hosts
    edges = [
        TopologyEdge(
            source=s,
            target=t,
            relation=str(data["relation"]),
            evidence=EvidenceRef(
                "topology", topology.edge_cites.get((s, t)) or topology_cite(s, t), f"{s} {data['relation']} {t}"
            ),
        )
        for s, t, data in g.edges(data=True)
        if s in members and t in members
    ]
    kinds = {m: str(g.nodes[m].get("kind", "unknown")) if m in g else "unknown" for m in members}
    aliases = {m: tuple(g.nodes[m]["aliases"]) for m in members if m in g and g.nodes[m].get("aliases")}
    return Subgraph(focus=present, entities=sorted(members), kinds=kinds, edges=edges, hops=hops, aliases=aliases)


def upstream_closure(graph: nx.DiGraph, entity: str) -> set[str]:
    """Everything a fault in `entity` can reach: its transitive dependents."""
    if entity not in graph:
        return set()
    return set(nx.ancestors(graph, entity))


def dependency_closure(topology: Topology, focus: Iterable[str]) -> set[str]:
    """Everything the focus depends on, transitively: every entity whose fault could reach it."""
    g = dependency_graph(topology)
    out: set[str] = set()
    for f in focus:
        if f in g:
            out |= set(nx.descendants(g, f))
    return out


def connecting(topology: Topology, focus: Iterable[str], targets: Iterable[str]) -> set[str]:
    """The targets plus every entity on a dependency path from the focus down to one of them."""
    g = dependency_graph(topology)
    below: set[str] = set()
    for f in focus:
        if f in g:
            below |= set(nx.descendants(g, f))
    out: set[str] = set()
    for t in targets:
        if t in g:
            out |= {t} | (set(nx.ancestors(g, t)) & below)
    return out
