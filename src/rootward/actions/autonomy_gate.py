"""Earned autonomy at the approval step: approve at once when the class has earned it.

When the pipeline creates an approval request it calls `approve_if_earned`.
An action class (`verb:entity_kind`) skips the human only when the operator
opted it in (`worldmodel.autonomous_classes`) and its last N verdicts are all
`match` (the world model's `may_run_unattended` decides; every check is
audited there). The approval is then decided by a built-in system identity
through the same `decide` path as a human, with `via="autonomy"`, so the
approval row and the audit trail say exactly how it was approved. The
executor re-checks the class before running such a request, so a deviation
recorded in between revokes it even after approval.

The system identity exists only in memory: it has no user row, so no token
can be created for it and nobody can sign in as it.
"""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootward.actions.approvals import DecisionOutcome, decide
from rootward.domain.roles import Role
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import append_audit
from rootward.store.users import User
from rootward.store.worldmodel import DbVerdictHistory, WmEntityRow, WmProposalRow
from rootward.worldmodel.autonomy import AutonomyDecision, action_class, may_run_unattended
from rootward.worldmodel.settings import WorldModelSettings

AUTONOMY_USER = User(id="system:autonomy", name="rootward:autonomy", role=Role.APPROVER)


def action_class_for(session: Session, proposal_hash: str, verb: str, target: str) -> str:
    """The class a proposal belongs to: as the engine stored it, else from the graph's entity kind."""
    stored = session.scalars(
        select(WmProposalRow.action_class)
        .where(WmProposalRow.proposal_hash == proposal_hash)
        .order_by(WmProposalRow.created_at.desc())
        .limit(1)
    ).first()
    if stored and not stored.endswith(":unknown"):
        return str(stored)
    entity = session.get(WmEntityRow, target)
    return action_class(verb, entity.kind if entity is not None else "unknown")


def autonomy_check(session: Session, klass: str, settings: WorldModelSettings) -> AutonomyDecision:
    """May this class run unattended right now? Audited as `autonomy.checked`."""
    return may_run_unattended(
        DbVerdictHistory(session),
        klass,
        opted_in_classes=settings.autonomous_classes,
        window=settings.autonomy_window,
        audit=lambda kind, subject, data: append_audit(session, kind, subject, data),
    )


def approve_if_earned(
    session: Session,
    approval: ApprovalRow,
    klass: str | None,
    settings: WorldModelSettings,
    *,
    now: datetime | None = None,
) -> DecisionOutcome | None:
    """Approve `approval` as the autonomy identity if its class has earned it; None leaves it to a human.

    `klass` is the proposal's `action_class` as the engine computed it; None looks it up.
    """
    if settings.disabled:
        return None  # the kill switch withholds everything; nothing to approve
    if klass is None:
        action = json.loads(approval.action_json)
        klass = action_class_for(session, approval.proposal_hash, str(action.get("verb")), str(action.get("target")))
    decision = autonomy_check(session, klass, settings)
    if not decision.allowed:
        return None
    outcome = decide(session, approval.id, AUTONOMY_USER, "approve", via="autonomy", now=now)
    append_audit(
        session,
        "autonomy.approved" if outcome.ok else "autonomy.not_approved",
        approval.id,
        {**decision.to_json(), "status": outcome.status, "reason": outcome.reason},
    )
    return outcome
