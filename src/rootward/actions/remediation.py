"""A remediation proposal put before an approver: prediction committed, gate asked, autonomy checked.

The prediction the engine computed is committed under the action's hash (once:
a step re-run after a crash finds it), the approval request goes through the
prediction gate (`request_approval`: a withheld proposal is audited and gets no
request), and a class that has earned autonomy is approved at once by the
autonomy identity.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootward.actions.approvals import request_approval
from rootward.actions.autonomy_gate import approve_if_earned
from rootward.domain.proposal import Proposal
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import append_audit
from rootward.store.worldmodel import DbPredictionLedger
from rootward.worldmodel.prediction_gate import ProposedAction, commit_prediction
from rootward.worldmodel.settings import WorldModelSettings

IN_FLIGHT = ("pending", "approved", "executing")


def request_remediation(
    session: Session,
    action: ProposedAction,
    *,
    proposal_hash: str,
    prediction: dict[str, Any],
    action_class: str | None,
    investigation_id: str,
    settings: WorldModelSettings,
    ttl: timedelta,
) -> str | None:
    """The approval request's id; None when the gate withheld the proposal.

    One request per action across investigations: when the same action (same hash: verb, target,
    parameters) already waits for or has an approver's decision in flight, that request is the answer,
    so one cascade investigated from two groups asks the approver once."""
    existing = session.scalars(
        select(ApprovalRow)
        .where(ApprovalRow.proposal_hash == proposal_hash, ApprovalRow.status.in_(IN_FLIGHT))
        .where((ApprovalRow.status != "pending") | (ApprovalRow.expires_at > datetime.now(UTC)))
        .order_by(ApprovalRow.requested_at)
    ).first()
    if existing is not None:
        append_audit(session, "approval.deduplicated", existing.id, {"investigation_id": investigation_id})
        return existing.id
    ledger = DbPredictionLedger(session)
    if ledger.get(proposal_hash) is None:
        commit_prediction(ledger, action, prediction)
    row = request_approval(session, action, ledger, investigation_id=investigation_id, settings=settings, ttl=ttl)
    if not isinstance(row, ApprovalRow):
        return None
    approve_if_earned(session, row, action_class, settings)
    return row.id


def request_pending_proposals(
    session: Session,
    investigation_id: str,
    proposals: list[Proposal],
    *,
    settings: WorldModelSettings,
    ttl: timedelta,
) -> list[str]:
    """Approval requests for every pending proposal that carries its prediction (an imported investigation's)."""
    requested = []
    for p in proposals:
        if p.pending and p.prediction is not None:
            approval_id = request_remediation(
                session,
                p.action,
                proposal_hash=p.proposal_hash,
                prediction=p.prediction,
                action_class=p.action_class or None,
                investigation_id=investigation_id,
                settings=settings,
                ttl=ttl,
            )
            requested += [approval_id] if approval_id else []
    return requested
