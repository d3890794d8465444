"""Which services are linked in the topology, for grouping one cascade into one incident.

Two services are linked when at most `hops` `depends_on` edges separate them,
in either direction (a caller and what it calls, or two callers of one
database). Sharing a host is not a link: a node runs hundreds of unrelated
workloads, and one noisy neighbour must not merge their incidents.
"""

from __future__ import annotations

from functools import lru_cache

import networkx as nx

from rootward.domain.topology import Topology
from rootward.ingest.router import Linked


def topology_links(topology: Topology, hops: int) -> Linked:
    graph: nx.Graph = nx.Graph()
    for entity in topology.entities.values():
        for target in entity.depends_on:
            graph.add_edge(entity.name, target)

    @lru_cache(maxsize=4096)
    def near(service: str) -> frozenset[str]:
        if service not in graph:
            return frozenset()
        return frozenset(nx.single_source_shortest_path_length(graph, service, cutoff=hops))

    def linked(a: str, b: str) -> bool:
        return a != b and b in near(a)

    return linked
