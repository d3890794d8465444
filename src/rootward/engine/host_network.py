"""A host's network, read from the calls that cross it: the smallest thing whose calls are the slowed ones.

Delay on a node's, VM's or hypervisor's network slows every call that goes in or
out of it, whichever service makes or answers it, and no call between services
elsewhere. The trace attribution reads each slowed call edge at one of its ends
(`trace_attribution._network`), so such a fault shows as several services each
with a network delay of its own, on both sides of the host's boundary, and the
host, which writes no spans, gets nothing. Here each host is one more candidate:
the calls it would slow are the edges with exactly one end on it (its services,
directly or through the hosts they run on; calls between two of its own services
stay on it), a service's are every edge it makes or answers. A host whose edges
match the slowed edges strictly better than any service's (Jaccard) is credited
with the delay, and the services whose slowed calls all cross it become its
victims. Where a service matches as well (one service is all a host carries
across its boundary), the calls cannot tell the two apart: the host is credited
beside it, and nobody is its victim.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from rootward.context.assemble import Context
from rootward.context.trace_evidence import TraceFinding
from rootward.engine.trace_attribution import FaultHint, TraceAttribution, attribute_traces, time_strength

# A host explains fewer than this many slowed calls no better than one service would.
MIN_HOST_EDGES = 2
# Below this match the slowed calls are not one host's doing.
MIN_MATCH = 0.5

Edge = tuple[str, str]


def hosted(runs_on: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """Per host, everything that runs on it, directly or through the hosts it runs on."""
    out: dict[str, set[str]] = {}
    for entity, hosts in _hosts_under(runs_on).items():
        for host in hosts:
            out.setdefault(host, set()).add(entity)
    return {h: frozenset(members) for h, members in out.items()}


def _hosts_under(runs_on: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """Per entity, every host it runs on, directly or through the hosts it runs on."""
    out: dict[str, frozenset[str]] = {}
    for entity in runs_on:
        seen, host = {entity}, runs_on[entity]
        while host not in seen:  # a loop in the map ends the chain
            seen.add(host)
            if host not in runs_on:
                break
            host = runs_on[host]
        out[entity] = frozenset(seen - {entity})
    return out


def _match(hit: int, edges: int, slowed: int) -> float:
    """Jaccard of a candidate's edges and the slowed edges, from the counts."""
    union = edges + slowed - hit
    return hit / union if union else 0.0


def _best_host(
    calls: set[Edge], slowed: set[Edge], runs_on: Mapping[str, str]
) -> tuple[str, float, set[Edge], bool] | None:
    """The host matching the slowed calls best, at least as well as any service; and whether strictly better.

    Counted in one pass over the edges (a host's edges are those whose ends run on different
    sets of hosts, it being in one of them), so a map of hundreds of nodes costs no more than
    its edges do.
    """
    under = _hosts_under(runs_on)
    edges: dict[str, Counter[str]] = {"service": Counter(), "host": Counter()}
    hits: dict[str, Counter[str]] = {"service": Counter(), "host": Counter()}
    for caller, callee in calls:
        slow = int((caller, callee) in slowed)
        crossed = under.get(caller, frozenset()) ^ under.get(callee, frozenset())
        for side, names in (("service", (caller, callee)), ("host", crossed)):
            edges[side].update(names)
            hits[side].update({name: slow for name in names})
    n = len(slowed)
    best_service = max((_match(hits["service"][s], m, n) for s, m in edges["service"].items()), default=0.0)
    sizes = Counter(h for hosts in under.values() for h in hosts)
    found = [
        (score, -sizes[h], h)
        for h, m in edges["host"].items()
        if hits["host"][h] >= MIN_HOST_EDGES
        and (score := _match(hits["host"][h], m, n)) >= MIN_MATCH
        and score >= best_service
    ]
    if not found:
        return None
    score, _, host = max(found)  # of equal matches, the host carrying the least
    crossing = {c for c in calls if (host in under.get(c[0], frozenset())) != (host in under.get(c[1], frozenset()))}
    return host, score, crossing, score > best_service


def attribute_hosts(
    traces: dict[str, TraceAttribution], findings: Sequence[TraceFinding], runs_on: Mapping[str, str]
) -> None:
    """Credit the host whose boundary the slowed calls cross, and make the services it slowed its victims."""
    network = {(f.caller, f.entity): f for f in findings if f.kind == "network" and f.caller is not None}
    calls = {(caller, callee) for caller, callee in network if caller is not None}
    slowed = {edge for edge in calls if network[edge].up}
    found = _best_host(calls, slowed, runs_on) if slowed else None
    if found is None:
        return
    host, match, crossing, better = found
    mine = sorted((network[e] for e in crossing & slowed), key=lambda f: (-time_strength(f), f.where))
    score = match * time_strength(mine[0])
    reason = f"the slowed calls are those crossing {host}'s network ({', '.join(f.where for f in mine[:3])})"
    a = traces.setdefault(host, TraceAttribution(host))
    a.credit(FaultHint("network_latency", score, tuple(f.evidence for f in mine[:3]), reason))
    a.symptomatic = True
    if not better:
        return  # a service explains the slowed calls as well: the host is a reading beside it, not above it
    for service in sorted({x for edge in crossing & slowed for x in edge}):
        t = traces.get(service)
        own_slowed = {e for e in slowed if service in e}
        if t is None or t.victim_of is not None or not own_slowed <= crossing or t.own > score:
            continue
        t.victim_of = host
        t.reasons.append(f"its calls slowed only across {host}'s network")


def runs_on_map(edges: Iterable[tuple[str, str, str]]) -> dict[str, str]:
    """(source, target, relation) triples to each entity's host; the first host named wins."""
    out: dict[str, str] = {}
    for source, target, relation in edges:
        if relation == "runs_on":
            out.setdefault(source, target)
    return out


def attributed_traces(ctx: Context) -> dict[str, TraceAttribution]:
    """The trace attribution of every entity, hosts read from the calls crossing them included."""
    traces = attribute_traces(ctx.trace_findings)
    runs_on = runs_on_map((e.source, e.target, e.relation) for e in ctx.topology.edges)
    attribute_hosts(traces, ctx.trace_findings, runs_on)
    return traces
