from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rootward.worldmodel.graph import WorldGraph
from rootward.worldmodel.history import ObservedAlert
from rootward.worldmodel.miner import apply, learned_confidence, mine

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _stream(pairs: int, noise: int = 12) -> list[ObservedAlert]:
    """`pairs` incidents where payment-db alerts 2 min before checkout, plus unrelated noise alerts."""
    alerts = []
    for i in range(pairs):
        t = T0 + timedelta(hours=i)
        alerts += [
            ObservedAlert("payment-db", "SlowQueries", t),
            ObservedAlert("checkout", "HighErrorRate", t + timedelta(minutes=2)),
        ]
    for i in range(noise):
        entity = ("catalog", "node-1", "frontend")[i % 3]
        alerts.append(ObservedAlert(entity, "Noise", T0 + timedelta(days=2, hours=i)))
    return alerts


def test_confidence_never_exceeds_the_learned_cap() -> None:
    assert learned_confidence(3) == 0.55
    assert all(learned_confidence(n) <= 0.75 for n in range(0, 10_000))


def test_repeated_co_occurrence_proposes_an_edge_from_the_later_to_the_earlier(shop: WorldGraph) -> None:
    proposals = mine(shop, _stream(5))
    assert [(p.source, p.target) for p in proposals] == [("checkout", "payment-db")]
    assert proposals[0].observations == 5 and proposals[0].lift >= 3
    assert proposals[0].confidence == 0.65


def test_fewer_than_three_observations_propose_nothing(shop: WorldGraph) -> None:
    assert mine(shop, _stream(2)) == []


def test_entities_far_apart_in_the_graph_are_not_linked(shop: WorldGraph) -> None:
    assert mine(shop, _stream(5), max_distance=1) == []


def test_pairs_on_every_incident_have_no_lift(shop: WorldGraph) -> None:
    """Two entities that alert in every transaction tell nothing about each other."""
    assert mine(shop, _stream(6, noise=0)) == []


def test_applied_proposals_are_learned_claims_capped_at_075(shop: WorldGraph) -> None:
    proposals = mine(shop, _stream(40, noise=400))
    assert proposals and all(p.confidence <= 0.75 for p in proposals)
    apply(shop, proposals, now=T0)
    edge = shop.edge("checkout", "payment-db")
    assert edge is not None and edge.layers == ("learned",) and edge.confidence == 0.75
