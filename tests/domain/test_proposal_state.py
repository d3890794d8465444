"""One status per proposal: the approval request, once there is one, is what every surface shows."""

from __future__ import annotations

from rootward.domain.proposal import Proposal, ProposedAction
from rootward.domain.proposal_state import NO_EXECUTOR, ApprovalFacts, describe_action, proposal_states

REVERT = ProposedAction.of("config_change", "payment", revert="config-7596")


def _proposal(action: ProposedAction = REVERT, status: str = "pending_approval") -> Proposal:
    return Proposal(action=action, proposal_hash=f"h-{action.verb}", status=status, why="revert the change")  # type: ignore[arg-type]


def test_parameters_read_as_an_action() -> None:
    assert describe_action(REVERT) == "revert config-7596 on payment"
    rollback = ProposedAction.of("rollback", "catalog", change_id="deploy-88", from_version="v2.4.1")
    assert describe_action(rollback) == "roll back deploy-88 (v2.4.1) on catalog"
    assert describe_action(ProposedAction.of("scale", "cart", delta_replicas=1)) == "scale cart up by 1 replica"
    assert describe_action(ProposedAction.of("rollback", "api", namespace="shop", to_revision=41)) == (
        "roll back api to revision 41 (namespace shop)"
    )
    assert describe_action(ProposedAction.of("restart", "payment")) == "restart payment"


def test_an_approved_request_overrides_the_proposals_pending_status_and_names_the_channel() -> None:
    approval = ApprovalFacts("a1", "h-config_change", REVERT, "approved", decided_by="anna", decided_via="console")
    [state] = proposal_states([_proposal()], [approval], frozenset({"config_change"}))
    assert (state.status, state.approval_id, state.decidable) == ("approved", "a1", False)
    assert state.words == "approved by anna in the console"
    assert state.executor_note == ""


def test_without_an_executor_for_the_verb_approving_only_records_the_decision() -> None:
    approval = ApprovalFacts("a1", "h-config_change", REVERT, "pending")
    [state] = proposal_states([_proposal()], [approval], frozenset({"restart"}))
    assert state.decidable and state.executor_note == NO_EXECUTOR
    assert state.to_json()["status"] == "pending" and state.to_json()["text"] == "revert config-7596 on payment"


def test_without_a_request_a_proposal_is_proposed_or_withheld_never_pending() -> None:
    withheld = _proposal(ProposedAction.of("restart", "payment"), "withheld").model_copy(
        update={"reason": "kill_switch"}
    )
    states = proposal_states([_proposal(), withheld], [], frozenset())
    assert [s.status for s in states] == ["proposed", "withheld"]
    assert states[1].words == "withheld: no approval can be asked (kill_switch)" and states[1].executor_note == ""


def test_a_request_no_proposal_names_is_still_shown() -> None:
    other = ProposedAction.of("rollback", "cart", to_revision=3)
    states = proposal_states(
        [_proposal()], [ApprovalFacts("a9", "h-x", other, "rejected", "vic", "slack")], frozenset()
    )
    assert [(s.text, s.words) for s in states] == [
        ("revert config-7596 on payment", "proposed; no approval requested"),
        ("roll back cart to revision 3", "rejected by vic in Slack"),
    ]
