"""Approval requests: created only through the prediction gate, decided only by approvers.

Every path that refuses something (a withheld proposal, a non-approver, an
expired or already-decided request) is audited with who, how and why, and
changes nothing else. Callers that anyone can reach (the API, Slack) pass a
`RefusalThrottle`: the first refusal per caller and minute gets its row, the
rest one summary row with the count (store/audit_refusals.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from rootward.domain.roles import Role
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import append_audit
from rootward.store.audit_refusals import RefusalThrottle
from rootward.store.ids import new_id
from rootward.store.users import User
from rootward.worldmodel.prediction_gate import GateDecision, PredictionLedger, ProposedAction, action_json, gate
from rootward.worldmodel.settings import WorldModelSettings

Decision = Literal["approve", "reject"]
Via = Literal["console", "api", "slack", "matrix", "teams", "autonomy", "cli"]
# Why a decision was refused, one kind per HTTP status, the same on every surface (API, console, docs).
Refusal = Literal["unknown", "forbidden", "conflict"]
REFUSAL_STATUS: dict[str, int] = {"unknown": 404, "forbidden": 403, "conflict": 409}
DEFAULT_TTL = timedelta(minutes=30)


@dataclass(frozen=True)
class DecisionOutcome:
    ok: bool
    status: str
    reason: str = ""
    refusal: Refusal | None = None

    @property
    def http_status(self) -> int:
        """404 no such request, 403 not allowed to decide, 409 no longer pending (200 when it went through)."""
        return REFUSAL_STATUS[self.refusal] if self.refusal else 200


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def request_approval(
    session: Session,
    action: ProposedAction,
    ledger: PredictionLedger,
    *,
    investigation_id: str,
    settings: WorldModelSettings | None = None,
    ttl: timedelta = DEFAULT_TTL,
    now: datetime | None = None,
) -> ApprovalRow | GateDecision:
    """A pending approval request, or the gate's withheld decision (nothing to approve)."""
    decision = gate(action, ledger, settings=settings)
    if not decision.allowed:
        detail = {"proposal_hash": decision.proposal_hash, "reason": decision.reason}
        detail["action"] = json.loads(action_json(action))
        append_audit(session, "approval.withheld", investigation_id, detail)
        return decision
    at = now or datetime.now(UTC)
    row = ApprovalRow(
        id=new_id(),
        investigation_id=investigation_id,
        proposal_hash=decision.proposal_hash,
        action_json=action_json(action),
        prediction=decision.prediction or {},
        status="pending",
        requested_at=at,
        expires_at=at + ttl,
    )
    session.add(row)
    session.flush()
    append_audit(
        session,
        "approval.requested",
        row.id,
        {"investigation_id": investigation_id, "proposal_hash": row.proposal_hash, "expires_at": at.isoformat()},
    )
    return row


def decide(
    session: Session,
    approval_id: str,
    user: User | None,
    decision: Decision,
    *,
    via: Via,
    now: datetime | None = None,
    refusals: RefusalThrottle | None = None,
    source: str | None = None,
) -> DecisionOutcome:
    """Approve or reject; `source` names the caller for the refusal throttle (default: the user)."""
    at = now or datetime.now(UTC)
    who = user.name if user else "unknown"
    row = session.get(ApprovalRow, approval_id)

    def refuse(status: str, reason: str, kind: Refusal = "conflict") -> DecisionOutcome:
        caller = f"{via}:{source or who}"
        if refusals is not None and not refusals.admit("approval.refused", caller, reason, approval_id):
            return DecisionOutcome(False, status, reason, kind)
        append_audit(
            session,
            "approval.refused",
            approval_id,
            {
                "by": who,
                "via": via,
                "decision": decision,
                "reason": reason,
            },
        )
        return DecisionOutcome(False, status, reason, kind)

    if row is None:
        return refuse("unknown", "no such approval request", "unknown")
    if user is None:
        return refuse(row.status, "unknown user", "forbidden")
    if not user.role.at_least(Role.APPROVER):
        return refuse(row.status, f"{user.name} is {user.role.value}; approving needs the approver role", "forbidden")
    if row.status == "pending" and _aware(row.expires_at) <= at:
        row.status = "expired"
        append_audit(session, "approval.expired", row.id, {"expired_at": row.expires_at.isoformat()})
        return refuse("expired", "the approval request expired")
    if row.status != "pending":
        return refuse(row.status, f"the request is already {row.status}")
    new_status = "approved" if decision == "approve" else "rejected"
    # Compare-and-set, so two approvers clicking at once cannot both win.
    result = session.execute(
        update(ApprovalRow)
        .where(ApprovalRow.id == approval_id, ApprovalRow.status == "pending")
        .values(status=new_status, decided_by=user.name, decided_via=via, decided_at=at)
        .execution_options(synchronize_session="fetch")
    )
    if not getattr(result, "rowcount", 0):
        return refuse(row.status, "decided concurrently by someone else")
    append_audit(session, f"approval.{new_status}", approval_id, {"by": user.name, "via": via})
    return DecisionOutcome(True, new_status)


def expire_due(session: Session, now: datetime | None = None) -> int:
    at = now or datetime.now(UTC)
    due = select(ApprovalRow).where(ApprovalRow.status == "pending", ApprovalRow.expires_at <= at)
    rows = session.scalars(due).all()
    for row in rows:
        row.status = "expired"
        append_audit(session, "approval.expired", row.id, {"expired_at": _aware(row.expires_at).isoformat()})
    return len(rows)
