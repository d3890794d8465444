"""The engine's risk gate (`rootward.engine.proposals`), which the world model owns."""

from __future__ import annotations

from datetime import UTC, datetime

from rootward.domain.investigation import HypothesisOut
from rootward.domain.telemetry import Change
from rootward.engine.proposals import propose
from rootward.worldmodel.prediction_gate import MemoryLedger, proposal_hash
from rootward.worldmodel.settings import WorldModelSettings

from .conftest import shop_topology

DEFAULTS = WorldModelSettings()
DEPLOY = Change("deploy-1", "deploy", "payment", datetime(2026, 3, 1, tzinfo=UTC), version="v2.3.1")


def _h(entity: str, fault: str, status: str = "validated", confidence: float = 0.8) -> HypothesisOut:
    return HypothesisOut(id="H1", entity=entity, fault_type=fault, status=status, confidence=confidence)  # type: ignore[arg-type]


def test_deploy_regression_proposes_a_rollback_with_a_committed_prediction() -> None:
    ledger = MemoryLedger()
    [item] = propose(
        [_h("payment", "deploy_regression")], shop_topology(), changes=[DEPLOY], ledger=ledger, settings=DEFAULTS
    )
    assert item.action.verb == "rollback"
    assert item.action.params == {"change_id": "deploy-1", "from_version": "v2.3.1"}
    assert item.status == "pending_approval" and item.reason is None
    assert item.proposal_hash == proposal_hash(item.action)
    assert ledger.get(item.proposal_hash) is not None
    prediction = item.prediction
    assert prediction is not None
    assert {"entities", "alerts", "window_s"} <= set(prediction)
    assert "checkout" in {e["name"] for e in prediction["entities"]}


def test_fault_types_map_to_their_remedies() -> None:
    topology = shop_topology()
    verbs = {
        fault: [p.action.verb for p in propose([_h("payment", fault)], topology, settings=DEFAULTS)]
        for fault in ("memory_leak", "traffic_surge", "config_error", "connection_pool_exhaustion", "disk_full")
    }
    assert verbs == {
        "memory_leak": ["restart"],
        "traffic_surge": ["scale"],
        "config_error": ["config_change"],
        "connection_pool_exhaustion": ["restart"],
        "disk_full": [],
    }


def test_no_proposal_for_an_unvalidated_or_weak_top_hypothesis() -> None:
    topology = shop_topology()
    assert propose([_h("payment", "memory_leak", status="inconclusive")], topology, settings=DEFAULTS) == []
    assert propose([_h("payment", "memory_leak", confidence=0.3)], topology, settings=DEFAULTS) == []
    assert propose([], topology, settings=DEFAULTS) == []


def test_target_outside_the_graph_is_withheld_for_lack_of_prediction() -> None:
    [item] = propose([_h("ghost", "memory_leak")], shop_topology(), settings=DEFAULTS)
    assert item.status == "withheld" and item.reason == "no_prediction"
    assert item.prediction is None


def test_kill_switch_withholds_every_proposal_but_keeps_the_analysis() -> None:
    [item] = propose([_h("payment", "memory_leak")], shop_topology(), settings=WorldModelSettings(disabled=True))
    assert item.status == "withheld" and item.reason == "kill_switch"
    assert item.prediction is not None
