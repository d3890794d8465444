"""The call graph seen in traces: caller → callee service pairs of parent/child spans.

A span whose parent span belongs to another service is one call from the
parent's service into the span's service, so the caller `depends_on` the
callee. This is observed topology: only the calls that happened in the spans
read, which is why it joins the merged topology below the declared file and
the cluster, never replacing them. The host a span was recorded on (`host`) says
where its service runs, so the spans also give `runs_on` edges (`host_cites`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Iterator

from rootward.domain.telemetry import Span
from rootward.domain.topology import Entity, Topology


def _calls(spans: Iterable[Span]) -> Iterator[tuple[str, Span]]:
    """(caller service, callee span) for each span whose parent is in the same set and another service."""
    spans = list(spans)
    service_of = {(s.trace_id, s.span_id): s.service for s in spans}
    for span in spans:
        if span.parent_id is None:
            continue
        caller = service_of.get((span.trace_id, span.parent_id))
        if caller is None or caller == span.service or not caller or not span.service:
            continue
        yield caller, span


def call_edges(spans: Iterable[Span]) -> dict[tuple[str, str], int]:
    """`{(caller, callee): calls}` over the spans whose parent is in the same set and another service."""
    edges: dict[tuple[str, str], int] = {}
    for caller, span in _calls(spans):
        edges[(caller, span.service)] = edges.get((caller, span.service), 0) + 1
    return edges


def call_cites(spans: Iterable[Span]) -> dict[tuple[str, str], str]:
    """Per call edge, the bundle cite of its calls: `traces.jsonl:<caller>-><callee>@<first>-<last>`."""
    seen: dict[tuple[str, str], tuple[float, float]] = {}
    for caller, span in _calls(spans):
        t = span.start.timestamp()
        lo, hi = seen.get((caller, span.service), (t, t))
        seen[(caller, span.service)] = (min(lo, t), max(hi, t))
    # Whole seconds that hold every call: the floor of the first start, the ceiling of the last.
    return {(a, b): f"traces.jsonl:{a}->{b}@{math.floor(lo)}-{math.ceil(hi)}" for (a, b), (lo, hi) in seen.items()}


def host_cites(spans: Iterable[Span], skip: Collection[str] = ()) -> dict[tuple[str, str], str]:
    """Per (service, host) its spans were recorded on, the cite of them: `traces.jsonl:<service>@<first>-<last>`.

    Services of `skip` (their hosts already declared) and a host named like a service
    (a tracer that put the service or the pod there) are left out.
    """
    spans = list(spans)
    services = {s.service for s in spans}
    seen: dict[tuple[str, str], tuple[float, float]] = {}
    for span in spans:
        if not span.host or not span.service or span.service in skip or span.host in services:
            continue
        t = span.start.timestamp()
        lo, hi = seen.get((span.service, span.host), (t, t))
        seen[(span.service, span.host)] = (min(lo, t), max(hi, t))
    return {(a, h): f"traces.jsonl:{a}@{math.floor(lo)}-{math.ceil(hi)}" for (a, h), (lo, hi) in seen.items()}


def topology_from_edges(
    edges: Iterable[tuple[str, str]],
    cites: dict[tuple[str, str], str] | None = None,
    runs_on: Iterable[tuple[str, str]] = (),
) -> Topology:
    """Services and their `depends_on` edges; a callee never seen calling is still an entity.

    `cites` (edge -> cite of the observation) makes each edge cite what it was seen in.
    `runs_on` are (service, host) pairs: the host joins as an entity of kind host.
    """
    depends: dict[str, list[str]] = {}
    for caller, callee in edges:
        depends.setdefault(callee, [])
        targets = depends.setdefault(caller, [])
        if callee not in targets:
            targets.append(callee)
    hosts: dict[str, list[str]] = {}
    for service, host in runs_on:
        depends.setdefault(service, [])
        hosts.setdefault(service, []).append(host)
    entities = {
        name: Entity(name=name, kind="service", depends_on=tuple(deps), runs_on=tuple(hosts.get(name, ())))
        for name, deps in depends.items()
    }
    for host in {h for hs in hosts.values() for h in hs} - set(entities):
        entities[host] = Entity(name=host, kind="host")
    return Topology(entities=entities, edge_cites=dict(cites or {}))
