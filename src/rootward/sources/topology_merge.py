"""One topology out of several layers: a declared file, Kubernetes, Prometheus targets.

Entities and edges are the union of all layers. Where layers disagree on an
entity's kind or attributes, the more authoritative layer wins: the order of
the layers is their authority (a hand-written file first, since it is what
the team said; then the cluster; then scrape targets). A kind of `unknown`
(an entity only named as an edge target) never wins over a real one. An edge
some layer declares is cited as declared; one only observed (the calls in
traces) keeps the cite of what it was seen in.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rootward.domain.live import LiveQuery
from rootward.domain.topology import Entity, Topology
from rootward.sources.base import QueriedSource, SourceUnavailable, TopologySource


def merge_topologies(layers: Sequence[Topology]) -> Topology:
    """Union of `layers`, first layer most authoritative."""
    merged: dict[str, Entity] = {}
    cites: dict[tuple[str, str], str] = {}
    declared: set[tuple[str, str]] = set()
    for layer in layers:
        for source, target, _ in layer.edges():
            edge = (source, target)
            if edge in layer.edge_cites:
                if edge not in declared:
                    cites.setdefault(edge, layer.edge_cites[edge])
            else:
                declared.add(edge)
                cites.pop(edge, None)
        for name, entity in layer.entities.items():
            known = merged.get(name)
            if known is None:
                merged[name] = entity
                continue
            kind = known.kind if known.kind != "unknown" or entity.kind == "unknown" else entity.kind
            merged[name] = Entity(
                name=name,
                kind=kind,
                depends_on=tuple(dict.fromkeys(known.depends_on + entity.depends_on)),
                runs_on=tuple(dict.fromkeys(known.runs_on + entity.runs_on)),
                attributes={**entity.attributes, **known.attributes},
            )
    return Topology(entities=merged, edge_cites=cites)


class MergedTopologySource:
    """`TopologySource` over named layers; a failed layer is a gap in `gaps`, all failed is unavailable."""

    def __init__(self, layers: Sequence[tuple[str, TopologySource]]) -> None:
        self.layers = list(layers)
        self.gaps: list[str] = []

    def graph(self) -> Topology:
        graphs: list[Topology] = []
        gaps: list[str] = []
        for _name, source in self.layers:
            try:
                graphs.append(source.graph())
            except SourceUnavailable as exc:
                gaps.append(str(exc))
        self.gaps = gaps
        if not graphs:
            if not gaps:
                raise SourceUnavailable("topology", "no topology layer configured")
            raise SourceUnavailable("topology", "; ".join(gaps), qualified=True)
        return merge_topologies(graphs)

    def live_queries(self, start: datetime, end: datetime) -> list[LiveQuery]:
        """What the layers that keep their queries read (the Kubernetes API paths)."""
        return [q for _name, s in self.layers if isinstance(s, QueriedSource) for q in s.live_queries(start, end)]
