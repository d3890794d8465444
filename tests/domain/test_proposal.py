"""The proposal record in domain/: the verbs it accepts are exactly those the world model predicts."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rootward.domain.proposal import ACTION_VERBS, Proposal, ProposedAction
from rootward.worldmodel.predict import ACTION_EFFECTS


def test_every_action_verb_has_a_predicted_effect_and_no_other() -> None:
    assert set(ACTION_VERBS) == set(ACTION_EFFECTS)


def test_an_unknown_verb_is_refused_with_the_known_ones_named() -> None:
    with pytest.raises(ValidationError, match="expected one of restart"):
        ProposedAction(verb="delete_everything", target="db", reversibility="irreversible")


def test_a_withheld_proposal_reads_as_one_line_with_its_reason() -> None:
    action = ProposedAction.of("scale", "checkout", delta_replicas=1)
    proposal = Proposal(action=action, proposal_hash="h", status="withheld", reason="kill_switch", hypothesis="H1")
    assert not proposal.pending
    assert proposal.describe() == "scale checkout {'delta_replicas': 1} [withheld: kill_switch]"
    assert Proposal.model_validate_json(proposal.model_dump_json()) == proposal
