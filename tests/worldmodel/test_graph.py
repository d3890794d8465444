from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from rootward.worldmodel.graph import EdgeClaim, WorldGraph

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def test_merge_keeps_every_layer_and_uses_the_highest_confidence() -> None:
    graph = WorldGraph()
    graph.add_claim("api", "db", EdgeClaim("topology_file", "depends_on", 0.85, NOW))
    graph.add_claim("api", "db", EdgeClaim("kubernetes", "depends_on", 0.95, NOW))
    graph.add_claim("api", "db", EdgeClaim("learned", "depends_on", 0.6, NOW))
    edge = graph.edge("api", "db")
    assert edge is not None
    assert edge.confidence == 0.95
    assert set(edge.layers) == {"topology_file", "kubernetes", "learned"}


def test_learned_claim_is_capped_below_declared_layers() -> None:
    graph = WorldGraph()
    graph.add_claim("api", "db", EdgeClaim("learned", "depends_on", 0.99, NOW))
    edge = graph.edge("api", "db")
    assert edge is not None and edge.confidence == 0.75


def test_claims_expire_unless_reseeded() -> None:
    graph = WorldGraph()
    graph.add_claim("api", "db", EdgeClaim("kubernetes", "depends_on", 0.95, NOW, NOW + timedelta(hours=1)))
    graph.add_claim("api", "db", EdgeClaim("operator", "depends_on", 0.85, NOW, NOW + timedelta(days=30)))
    graph.add_claim("api", "cache", EdgeClaim("kubernetes", "depends_on", 0.95, NOW, NOW + timedelta(hours=1)))
    later = NOW + timedelta(hours=2)
    dropped = graph.expire(later)
    assert ("api", "cache", "kubernetes") in dropped
    assert not graph.has_edge("api", "cache")
    edge = graph.edge("api", "db")
    assert edge is not None and edge.layers == ("operator",) and edge.confidence == 0.85
    # A re-seed refreshes the layer's claim instead of adding a second one.
    graph.add_claim("api", "db", EdgeClaim("operator", "depends_on", 0.85, later, later + timedelta(days=30)))
    edge = graph.edge("api", "db")
    assert edge is not None and len(edge.claims) == 1


def test_unknown_relation_is_rejected() -> None:
    with pytest.raises(ValueError):
        WorldGraph().add_claim("a", "b", EdgeClaim("operator", "calls", 0.85, NOW))


def test_dependents_are_where_faults_surface(shop: WorldGraph) -> None:
    assert shop.dependents("payment-db") == ["payment"]
    assert shop.dependencies("payment") == ["node-2", "payment-db"]
    assert shop.kind("payment-db") == "database"


def test_records_round_trip(shop: WorldGraph) -> None:
    copy = WorldGraph.from_records(shop.entity_records(), shop.claim_records())
    assert copy.entity_records() == shop.entity_records()
    assert copy.claim_records() == shop.claim_records()
