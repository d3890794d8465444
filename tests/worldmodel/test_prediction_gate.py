from __future__ import annotations

from datetime import UTC, datetime

from rootward.worldmodel.graph import WorldGraph
from rootward.worldmodel.predict import predict
from rootward.worldmodel.prediction_gate import (
    CommittedPrediction,
    MemoryLedger,
    ProposedAction,
    action_json,
    commit_prediction,
    gate,
    proposal_hash,
)
from rootward.worldmodel.settings import WorldModelSettings


def _predicted(graph: WorldGraph, action: ProposedAction) -> MemoryLedger:
    ledger = MemoryLedger()
    commit_prediction(ledger, action, predict(graph, action.target, action=action.verb).to_json())
    return ledger


def test_proposal_without_prediction_is_withheld() -> None:
    decision = gate(ProposedAction.of("restart", "payment"), MemoryLedger())
    assert decision.status == "withheld" and decision.reason == "no_prediction"


def test_proposal_with_committed_prediction_awaits_approval(shop: WorldGraph) -> None:
    action = ProposedAction.of("restart", "payment")
    decision = gate(action, _predicted(shop, action))
    assert decision.status == "pending_approval" and decision.reason is None
    assert decision.prediction is not None and decision.prediction["target"] == "payment"


def test_prediction_for_a_different_action_does_not_count(shop: WorldGraph) -> None:
    ledger = _predicted(shop, ProposedAction.of("restart", "payment"))
    decision = gate(ProposedAction.of("restart", "checkout"), ledger)
    assert decision.status == "withheld" and decision.reason == "no_prediction"


def test_changing_a_param_after_prediction_invalidates_it(shop: WorldGraph) -> None:
    action = ProposedAction.of("scale", "payment", delta_replicas=1)
    ledger = _predicted(shop, action)
    changed = action.model_copy(update={"params": {"delta_replicas": 10}})
    assert proposal_hash(changed) != proposal_hash(action)
    assert gate(changed, ledger).reason == "no_prediction"


def test_forged_claimed_hash_is_withheld(shop: WorldGraph) -> None:
    predicted = ProposedAction.of("restart", "payment")
    ledger = _predicted(shop, predicted)
    other = ProposedAction.of("reboot", "node-2")
    decision = gate(other, ledger, claimed_hash=proposal_hash(predicted))
    assert decision.status == "withheld" and decision.reason == "hash_mismatch"


def test_ledger_row_whose_action_does_not_hash_to_its_key_is_withheld(shop: WorldGraph) -> None:
    action = ProposedAction.of("restart", "payment")
    ledger = MemoryLedger()
    other = ProposedAction.of("restart", "checkout")
    forged = CommittedPrediction(proposal_hash(action), action_json(other), {"entities": []}, datetime.now(UTC))
    ledger.commit(forged)
    assert gate(action, ledger).reason == "prediction_mismatch"


def test_kill_switch_withholds_even_a_predicted_proposal(shop: WorldGraph) -> None:
    action = ProposedAction.of("restart", "payment")
    decision = gate(action, _predicted(shop, action), settings=WorldModelSettings(disabled=True))
    assert decision.status == "withheld" and decision.reason == "kill_switch"


def test_hash_is_stable_across_param_order() -> None:
    a = ProposedAction(verb="scale", target="x", params={"a": 1, "b": 2}, reversibility="reversible")
    b = ProposedAction(verb="scale", target="x", params={"b": 2, "a": 1}, reversibility="reversible")
    assert proposal_hash(a) == proposal_hash(b)
    assert len(proposal_hash(a)) == 64


def test_unknown_verb_is_not_an_action() -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="unknown verb"):
        ProposedAction(verb="rm -rf", target="payment", reversibility="irreversible")
