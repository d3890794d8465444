from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.approvals import decide, expire_due, request_approval
from rootward.domain.roles import Role
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.users import add_user, create_token, user_for_token
from rootward.worldmodel.prediction_gate import MemoryLedger, ProposedAction, commit_prediction
from rootward.worldmodel.settings import WorldModelSettings

T0 = datetime(2026, 3, 14, 14, 0, tzinfo=UTC)


def _action() -> ProposedAction:
    return ProposedAction.of("rollback", "payment", namespace="shop", to_revision=41)


def _kinds(s: Session) -> list[str]:
    return [r.kind for r in s.scalars(select(AuditRow).order_by(AuditRow.id))]


def test_no_prediction_means_no_approval_request(sessions: sessionmaker[Session]) -> None:
    with sessions() as s, s.begin():
        outcome = request_approval(s, _action(), MemoryLedger(), investigation_id="inv-1", now=T0)
        assert not isinstance(outcome, ApprovalRow)
        assert outcome.reason == "no_prediction"
        assert s.scalars(select(ApprovalRow)).all() == []
        assert "approval.withheld" in _kinds(s)


def test_kill_switch_withholds_even_with_a_prediction(sessions: sessionmaker[Session]) -> None:
    ledger = MemoryLedger()
    commit_prediction(ledger, _action(), {"entities": [], "alerts": [], "window_s": 600})
    with sessions() as s, s.begin():
        outcome = request_approval(
            s, _action(), ledger, investigation_id="inv-1", settings=WorldModelSettings(disabled=True)
        )
        assert not isinstance(outcome, ApprovalRow) and outcome.reason == "kill_switch"


def _pending(sessions: sessionmaker[Session]) -> str:
    ledger = MemoryLedger()
    commit_prediction(ledger, _action(), {"entities": ["checkout"], "alerts": [], "window_s": 600})
    with sessions() as s, s.begin():
        row = request_approval(s, _action(), ledger, investigation_id="inv-1", now=T0)
        assert isinstance(row, ApprovalRow)
        return row.id


def test_only_an_approver_can_approve_and_refusals_are_audited(sessions: sessionmaker[Session]) -> None:
    approval_id = _pending(sessions)
    with sessions() as s, s.begin():
        viewer = add_user(s, "vic", Role.VIEWER)
        responder = add_user(s, "rita", Role.RESPONDER)
        approver = add_user(s, "anna", Role.APPROVER)
    with sessions() as s, s.begin():
        assert not decide(s, approval_id, viewer, "approve", via="api", now=T0).ok
        assert not decide(s, approval_id, responder, "approve", via="slack", now=T0).ok
        assert not decide(s, approval_id, None, "approve", via="slack", now=T0).ok
        assert s.get(ApprovalRow, approval_id).status == "pending"  # type: ignore[union-attr]
        outcome = decide(s, approval_id, approver, "approve", via="api", now=T0 + timedelta(minutes=1))
        assert outcome.ok and outcome.status == "approved"
        again = decide(s, approval_id, approver, "reject", via="api", now=T0 + timedelta(minutes=2))
        assert not again.ok and "already approved" in again.reason
        assert _kinds(s).count("approval.refused") == 4
        assert verify_chain(s).ok


def test_expired_request_cannot_be_approved(sessions: sessionmaker[Session]) -> None:
    approval_id = _pending(sessions)
    with sessions() as s, s.begin():
        approver = add_user(s, "anna", Role.APPROVER)
        outcome = decide(s, approval_id, approver, "approve", via="slack", now=T0 + timedelta(minutes=31))
        assert not outcome.ok and outcome.status == "expired"
        assert s.get(ApprovalRow, approval_id).status == "expired"  # type: ignore[union-attr]


def test_expire_due_marks_old_pending_requests(sessions: sessionmaker[Session]) -> None:
    _pending(sessions)
    with sessions() as s, s.begin():
        assert expire_due(s, now=T0 + timedelta(minutes=29)) == 0
        assert expire_due(s, now=T0 + timedelta(minutes=31)) == 1


def test_tokens_are_stored_hashed_and_resolve_to_their_user(sessions: sessionmaker[Session]) -> None:
    with sessions() as s, s.begin():
        add_user(s, "anna", Role.APPROVER)
        token = create_token(s, "anna", "laptop")
    with sessions() as s:
        user = user_for_token(s, token)
        assert user is not None and user.role is Role.APPROVER
        assert user_for_token(s, token + "x") is None
