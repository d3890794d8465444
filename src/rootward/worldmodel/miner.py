"""Co-occurrence miner: propose edges the declared layers missed, from alerts that fire together.

The alert stream is cut into transactions: a transaction opens at an alert
and takes every alert that starts within 15 minutes of it (incident ids, when
known, never mix). For each pair of different entities we count the
transactions holding both (n) and compute lift = n·N / (n_a·n_b). A pair
becomes a proposed edge when n ≥ 3, lift ≥ 3 and the two entities are close
in the existing graph (undirected distance ≤ 3, not already linked). The
entity that usually alerts first is taken as the dependency. Confidence is
`min(0.75, 0.4 + 0.05·n)`: a learned edge can never reach the confidence of a
declared one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import combinations

import networkx as nx

from rootward.worldmodel.graph import LEARNED_CAP, LEARNED_LAYER, EdgeClaim, WorldGraph
from rootward.worldmodel.history import ObservedAlert

WINDOW = timedelta(minutes=15)
MIN_OBSERVATIONS = 3
MIN_LIFT = 3.0
MAX_DISTANCE = 3


def learned_confidence(observations: int) -> float:
    return min(LEARNED_CAP, 0.4 + 0.05 * observations)


@dataclass(frozen=True)
class ProposedEdge:
    source: str  # the dependent: alerted later
    target: str  # the dependency: alerted first
    observations: int
    lift: float
    distance: int
    confidence: float


def transactions(alerts: Sequence[ObservedAlert], incident_of: Sequence[str] | None = None) -> list[frozenset[str]]:
    """Entity sets of alerts that started within WINDOW of the transaction's first alert."""
    keyed = sorted(zip(incident_of or [""] * len(alerts), alerts, strict=True), key=lambda p: (p[0], p[1].starts_at))
    out: list[frozenset[str]] = []
    current: set[str] = set()
    opened: tuple[str, datetime] | None = None
    for incident, alert in keyed:
        if opened is None or incident != opened[0] or alert.starts_at - opened[1] > WINDOW:
            if current:
                out.append(frozenset(current))
            current, opened = set(), (incident, alert.starts_at)
        current.add(alert.entity)
    if current:
        out.append(frozenset(current))
    return out


def mine(
    graph: WorldGraph,
    alerts: Sequence[ObservedAlert],
    *,
    incident_of: Sequence[str] | None = None,
    min_observations: int = MIN_OBSERVATIONS,
    min_lift: float = MIN_LIFT,
    max_distance: int = MAX_DISTANCE,
) -> list[ProposedEdge]:
    baskets = transactions(alerts, incident_of)
    total = len(baskets)
    single: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for basket in baskets:
        single.update(basket)
        pairs.update(combinations(sorted(basket), 2))
    starts: dict[str, list[datetime]] = {}
    for alert in alerts:
        starts.setdefault(alert.entity, []).append(alert.starts_at)
    undirected = graph.g.to_undirected(as_view=True)
    out: list[ProposedEdge] = []
    for (a, b), n in sorted(pairs.items()):
        if n < min_observations:
            continue
        lift = n * total / (single[a] * single[b])
        if lift < min_lift:
            continue
        if a not in graph.g or b not in graph.g or graph.has_edge(a, b) or graph.has_edge(b, a):
            continue
        try:
            distance = nx.shortest_path_length(undirected, a, b)
        except nx.NetworkXNoPath:
            continue
        if distance > max_distance:
            continue
        a_first = _leads(starts[a], starts[b])
        dependency, dependent = (a, b) if a_first >= 0 else (b, a)
        out.append(ProposedEdge(dependent, dependency, n, lift, distance, learned_confidence(n)))
    return out


def _leads(a: list[datetime], b: list[datetime]) -> int:
    """Positive when a's alerts usually come before the nearest b alert within the window."""
    score = 0
    for ta in a:
        near = [tb for tb in b if abs((tb - ta).total_seconds()) <= WINDOW.total_seconds()]
        if near:
            nearest = min(near, key=lambda tb: abs((tb - ta).total_seconds()))
            score += 1 if nearest > ta else -1 if nearest < ta else 0
    return score


def apply(
    graph: WorldGraph, proposals: Sequence[ProposedEdge], *, now: datetime | None = None, ttl_s: float = 14 * 86400
) -> int:
    """Add proposals as `learned` claims (capped at 0.75 by the graph as well)."""
    now = now or datetime.now(UTC)
    for edge in proposals:
        graph.add_claim(
            edge.source,
            edge.target,
            EdgeClaim(
                LEARNED_LAYER,
                "depends_on",
                edge.confidence,
                now,
                now + timedelta(seconds=ttl_s),
                note=f"co-occurred {edge.observations}x, lift {edge.lift:.1f}",
            ),
        )
    return len(proposals)
