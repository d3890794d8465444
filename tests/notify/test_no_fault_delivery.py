"""How a no-fault verdict reaches the on-call engineer: L0, its reason first, nothing to approve."""

from __future__ import annotations

from rootward.domain.investigation import InvestigationResult
from rootward.notify.compose import compose_notification
from rootward.notify.matrix import matrix_html
from rootward.notify.message import plain_text, slack_blocks
from rootward.worldmodel.prediction_gate import ProposedAction

REASON = "No current fault: HighLatencyP99 on api resolved by 14:41; what moved was back at its baseline by 14:39."


def _result(status: str = "no_fault") -> InvestigationResult:
    return InvestigationResult.model_validate(
        {
            "bundle": "b",
            "status": status,
            "no_fault": status == "no_fault",
            "hypotheses": [{"id": "H1", "entity": "api", "fault_type": "deploy_regression", "status": "invalidated",
                            "confidence": 0.1}],  # fmt: skip
            "claims": [{"text": REASON, "evidence": ["E1"]}],
            "evidence": {"E1": {"kind": "alert", "cite": "alerts.json:fp1", "excerpt": "HighLatencyP99 on api"}},
            "proposals": [{"action": ProposedAction.of("restart", "api").model_dump(mode="json"),
                           "action_class": "restart:service", "proposal_hash": "h", "status": "pending_approval",
                           "prediction": {"entities": []}}],
        }
    )  # fmt: skip


def _note(result: InvestigationResult):  # type: ignore[no-untyped-def]
    return compose_notification(result, title="HighLatencyP99 on api", service="api", tier="L3", severity="P1",
                                investigation_id="inv-9", approval_id="ap-1")  # fmt: skip


def test_no_fault_is_sent_as_l0_with_its_reason_leading_and_no_action_to_approve() -> None:
    note = _note(_result())
    assert note.tier == "L0"
    assert note.summary.startswith("No current fault: HighLatencyP99 on api resolved by 14:41")
    assert note.suggested_actions == () and "approval_id" not in note.extra
    text = plain_text(note)
    assert text.startswith("[L0 P1] HighLatencyP99 on api") and "Awaiting approval" not in text
    blocks = slack_blocks(note)
    assert blocks[0]["text"]["text"].startswith("[L0]")
    assert blocks[1]["text"]["text"] == "*No current fault*"  # the headline card
    assert blocks[2]["text"]["text"].startswith("No current fault: HighLatencyP99 on api resolved by 14:41")
    assert not any(b["type"] == "actions" for b in blocks)
    assert "No current fault: HighLatencyP99 on api" in matrix_html(note)


def test_a_fault_keeps_its_tier_and_its_approval() -> None:
    note = _note(_result("validated"))
    assert note.tier == "L3" and note.extra == {"approval_id": "ap-1"} and note.suggested_actions
