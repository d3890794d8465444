"""Chat leads with the same headline card as the console: cause, since when, confidence, the action and its buttons."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from rootward.domain.investigation import EvidenceItem, HypothesisOut, InvestigationResult
from rootward.domain.proposal import Proposal, ProposedAction
from rootward.domain.proposal_state import ApprovalFacts, proposal_states
from rootward.notify.compose import compose_notification
from rootward.notify.matrix import matrix_html
from rootward.notify.message import Notification, plain_text, slack_blocks

REVERT = ProposedAction.of("config_change", "payment", revert="config-7596")


def _note() -> Notification:
    result = InvestigationResult(
        bundle="b",
        status="validated",
        hypotheses=[
            HypothesisOut(
                id="H1",
                entity="payment",
                fault_type="config_error",
                status="validated",
                confidence=0.84,
                evidence=["E1"],
            ),
            HypothesisOut(id="H2", entity="checkout", fault_type="network_latency", status="validated", confidence=0.3),
        ],
        evidence={"E1": EvidenceItem(kind="change", cite="changes.json:config-7596")},
        proposals=[Proposal(action=REVERT, proposal_hash="h1", status="pending_approval")],
        onset=datetime(2026, 3, 14, 11, 56, tzinfo=UTC),
        fired_at=datetime(2026, 3, 14, 12, 0, tzinfo=UTC),
    )
    states = proposal_states(result.proposals, [ApprovalFacts("a1", "h1", REVERT, "pending")], frozenset())
    return compose_notification(
        result, title="HighErrorRate on checkout", service="checkout", tier="L3", severity="P1",
        investigation_id="inv-1", approval_id="a1", proposals=states,
    )  # fmt: skip


def test_plain_text_and_matrix_lead_with_the_headline() -> None:
    text = plain_text(_note())
    lines = text.splitlines()
    assert lines[2] == "Root cause found: a bad configuration change at payment (config_error)"
    assert lines[3] == "Since 11:56 UTC, 4 min before the alert · confidence 0.84"
    assert "Suggested action: revert config-7596 on payment [pending]" in text
    assert "no executor configured: approving records the decision only" in text
    assert "revert config-7596 on payment (waiting for an approver)" in text
    assert "H2: checkout network_latency consistent, weaker (0.30)" in text  # not a second validated cause
    assert "Root cause found" in matrix_html(_note())


def test_slack_puts_the_buttons_right_under_the_headline_and_the_card_survives_the_outbox() -> None:
    blocks = slack_blocks(_note())
    assert [b["type"] for b in blocks[:3]] == ["header", "section", "actions"]
    assert blocks[1]["text"]["text"].startswith("*Root cause found: a bad configuration change at payment")
    assert blocks[2]["block_id"] == "approval:a1"
    assert sum(1 for b in blocks if b["type"] == "actions") == 1
    stored = Notification.from_dict(json.loads(json.dumps(_note().to_dict())))
    assert stored.headline == _note().headline
