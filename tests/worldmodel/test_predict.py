from __future__ import annotations

import pytest

from rootward.worldmodel.graph import WorldGraph
from rootward.worldmodel.predict import UnknownTarget, explain_score, predict


def test_fault_blast_radius_follows_dependents_with_paths(shop: WorldGraph) -> None:
    prediction = predict(shop, "payment-db", fault_type="connection_pool_exhaustion")
    names = [e.name for e in prediction.entities]
    assert names[0] == "payment-db"
    assert set(names) == {"payment-db", "payment", "checkout", "frontend"}
    frontend = prediction.entity("frontend")
    assert frontend is not None
    assert frontend.path == ("payment-db", "payment", "checkout", "frontend")
    assert frontend.probability < prediction.entity("payment").probability  # type: ignore[union-attr]
    assert frontend.delay_p95_s > prediction.entity("payment").delay_p95_s  # type: ignore[union-attr]
    assert prediction.window_s >= frontend.delay_p95_s


def test_restart_hits_dependents_softer_than_a_fault(shop: WorldGraph) -> None:
    fault = predict(shop, "payment", fault_type="dependency_down").entity("checkout")
    restart = predict(shop, "payment", action="restart").entity("checkout")
    assert fault is not None and restart is not None
    assert restart.probability < fault.probability


def test_host_reboot_reaches_its_tenants(shop: WorldGraph) -> None:
    prediction = predict(shop, "node-2", action="reboot")
    assert {"payment", "catalog"} <= {e.name for e in prediction.entities}
    assert any(a.entity == "node-2" and a.name == "NodeDown" for a in prediction.alerts)


def test_prediction_is_deterministic(shop: WorldGraph) -> None:
    a = predict(shop, "node-3", fault_type="disk_full").to_json()
    b = predict(WorldGraph.from_records(shop.entity_records(), shop.claim_records()), "node-3", fault_type="disk_full")
    assert a == b.to_json()


def test_unknown_target_cannot_be_predicted(shop: WorldGraph) -> None:
    with pytest.raises(UnknownTarget):
        predict(shop, "nope", action="restart")


def test_explain_score_prefers_the_entity_whose_blast_radius_matches(shop: WorldGraph) -> None:
    observed = {"payment", "checkout", "frontend"}
    scores = {name: explain_score(shop, name, observed) for name in shop.entities()}
    assert max(scores, key=lambda n: scores[n]) in {"payment", "payment-db"}
    assert scores["payment-db"] > scores["catalog"]
    assert scores["payment-db"] > scores["node-1"]
    assert explain_score(shop, "payment", []) == 0.0
