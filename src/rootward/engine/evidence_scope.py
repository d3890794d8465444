"""Never borrow evidence: a cause elsewhere must be linked to the alert by a dependency path.

An entity other than the alerting ones can explain an alert only if a fault
there can reach the alerting entity: the alerting entity depends on it,
transitively (it calls it, or runs on it), or, for a surge of load, it calls
the alerting entity. Something abnormal elsewhere (a busy neighbour on the
same host, another team's traffic) is not a cause of this alert, however loud
it is. The edges are the declared topology plus the calls failure logs show (a
caller naming what it cannot reach), the same ones the ranking reads.

When nothing linked is left, each alerting entity stays a hypothesis of its
own, read from its alert's name, with the gap that says why nothing more is
known about it. The result is then inconclusive with the gap named, which is
the honest answer, never another entity's story.

For an entity the map says nothing about (no topology at all, or no edge of
its own in it, as a database is in a map of the calls seen in traces), a
path is not absent but unknown. When every alerting entity has data of its
own, dropping such entities would leave a plain-Prometheus install, which
knows no call graph, blaming the alerting service for every incident; so they
keep their places, on their own evidence, and one gap says that their link to
the alert is not known. An alerting entity without data still borrows
nothing: that is the case this rule exists for.
"""

from __future__ import annotations

import networkx as nx

from rootward.context.anomaly import family_of
from rootward.context.assemble import Context
from rootward.domain.faults import FAMILY_FAULTS
from rootward.domain.hypothesis import Hypothesis, renumbered
from rootward.engine.alert_subjects import alert_subjects
from rootward.engine.signals import mentions

# A fault that travels against the call edges: a caller's surge of load reaches what it calls.
UPSTREAM_FAULTS = frozenset({"traffic_surge"})
ALERT_FAULTS = FAMILY_FAULTS


def _graph(ctx: Context) -> nx.DiGraph:
    g = ctx.topology.graph() if ctx.has_topology else nx.DiGraph()
    for signal in ctx.logs:
        if not (signal.changed and signal.is_failure):
            continue
        for entity in ctx.topology.entities:
            if entity != signal.service and mentions(signal, entity, ctx.topology.aliases.get(entity, ())):
                g.add_edge(signal.service, entity, relation="depends_on")
    return g


def linked_entities(ctx: Context) -> tuple[set[str], set[str]]:
    """(what the alerting entities depend on, what calls them) in the incident's graph."""
    g = _graph(ctx)
    below: set[str] = set()
    above: set[str] = set()
    calls = nx.subgraph_view(g, filter_edge=lambda a, b: g.edges[a, b].get("relation") == "depends_on")
    for entity in alert_subjects(ctx):
        if entity in g:
            below |= nx.descendants(g, entity)
            above |= nx.ancestors(calls, entity)
    return below, above


def _unmapped(ctx: Context) -> set[str]:
    """Entities the map says nothing about (no edge at all), when every alerting entity has data of its own.

    A map built only from what was seen (the calls in traces) knows only the
    calls that emit spans; a resolver, a vendor or a host it never saw is not
    unlinked but unknown to it, as everything is when there is no map at all.
    """
    if not all(ctx.telemetry.get(s) for s in ctx.alerting_services):
        return set()  # a blind alert borrows nothing
    g = _graph(ctx)
    if ctx.has_topology and all(e.evidence.cite.startswith("traces.jsonl:") for e in ctx.topology.edges):
        # Only the calls seen: DNS, vendors and hosts emit no spans, so a missing edge proves nothing.
        return set(ctx.topology.entities)
    # Calls are what carry a fault from one service to another: an entity the map gives no call
    # edge (a service known only from its scrape target and its host) has no known path, not none.
    calls = {n for a, b, rel in g.edges(data="relation") if rel == "depends_on" for n in (a, b)}
    return {e for e in ctx.topology.entities if e not in calls}


def keep_linked(ctx: Context, ranked: list[Hypothesis]) -> tuple[list[Hypothesis], list[str]]:
    """The hypotheses a dependency path ties to the alerts (renumbered, priors renormalised), and a gap
    per entity left out. With none left, one hypothesis per alerting entity from its alert."""
    alerting = set(ctx.alerting_services)
    if not alerting:
        return ranked, []
    subjects = set(alert_subjects(ctx))
    unmapped = _unmapped(ctx) - alerting
    below, above = linked_entities(ctx)

    def linked(h: Hypothesis) -> bool:
        if h.entity in alerting or h.entity in subjects or h.entity in below or h.entity in unmapped:
            return True
        return h.fault_type in UPSTREAM_FAULTS and h.entity in above

    kept = [h for h in ranked if linked(h)]
    dropped: dict[str, list[str]] = {}
    for h in ranked:
        if not linked(h):
            dropped.setdefault(h.entity, []).append(h.fault_type)
    names = ", ".join(sorted(alerting))
    gaps = [
        f"{entity} looked abnormal ({', '.join(dict.fromkeys(faults))}) but no dependency path links it to "
        f"{names}: not taken as the cause"
        for entity, faults in dropped.items()
    ]
    unknown = sorted({h.entity for h in ranked} & unmapped)
    if unknown:
        where = "no topology" if not ctx.has_topology else "the topology (declared or seen in traces) is silent on them"
        more = " and others" if len(unknown) > 4 else ""
        gaps.append(
            f"{where}: how {', '.join(unknown[:4])}{more} {'reaches' if len(unknown) == 1 else 'reach'} {names} "
            "is not known; ranked on their own evidence"
        )
    if not kept:
        kept = from_alerts(ctx)
    return renumbered(kept), gaps


def from_alerts(ctx: Context) -> list[Hypothesis]:
    """Each alerting entity, read by its alert's name, with the gaps that say what is not known about it."""
    out: list[Hypothesis] = []
    for alert in ctx.alerts:
        fault = ALERT_FAULTS.get(family_of(alert.name), "dependency_down")
        if any(h.entity == alert.service and h.fault_type == fault for h in out):
            continue
        known = [g for g in ctx.gaps if alert.service in g or g.startswith(("no metrics:", "no logs:"))]
        out.append(
            Hypothesis(
                f"H{len(out) + 1}",
                alert.service,
                fault,
                round(0.1 / (len(out) + 1), 4),
                [alert.evidence],
                ["only the alert is known about it", *known[:3]],
            )
        )
    return out
