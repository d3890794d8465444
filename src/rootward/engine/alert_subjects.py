"""What the alerts are about, in the map's terms: the alerting entities, or the system's entry points.

An alert names what its rule grouped by, and that is not always a component:
a namespace (`service="online-boutique"`), an SLO, a synthetic probe, a
customer-facing hostname. When the map does not know the name and nothing
reports under it, the alert is about the system as its users reach it, and
what users reach is the map's entry points: the entities that depend on
others and that nothing depends on. Read as an entity of its own, such an
alert links to nothing, and every abnormal component would be set aside as
"not linked to the alert".
"""

from __future__ import annotations

import networkx as nx

from rootward.context.assemble import Context


def entry_points(graph: nx.DiGraph) -> list[str]:
    """Entities that call others and that nothing calls (`depends_on` edges), sorted."""
    calls = [(a, b) for a, b, rel in graph.edges(data="relation") if rel == "depends_on"]
    callers = {a for a, _ in calls}
    called = {b for _, b in calls}
    return sorted(callers - called)


def alert_subjects(ctx: Context) -> list[str]:
    """Each alerting entity; for one the map does not know and with no data of its own, the entry points."""
    if not ctx.has_topology:
        return list(ctx.alerting_services)
    known = set(ctx.topology.focus)
    out: list[str] = []
    for entity in ctx.alerting_services:
        if entity in known or ctx.telemetry.get(entity):
            out.append(entity)
        else:
            out += entry_points(ctx.topology.graph()) or [entity]
    return list(dict.fromkeys(out))
