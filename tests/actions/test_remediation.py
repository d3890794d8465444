"""One approval request per remediation action, however many investigations propose it."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.approvals import decide
from rootward.actions.remediation import request_remediation
from rootward.domain.roles import Role
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import AuditRow
from rootward.store.users import add_user
from rootward.worldmodel.prediction_gate import ProposedAction, proposal_hash
from rootward.worldmodel.settings import WorldModelSettings

PREDICTION = {"entities": ["checkout"], "alerts": [], "window_s": 600}


def _propose(sessions: sessionmaker[Session], investigation_id: str, target: str = "payment") -> str | None:
    action = ProposedAction.of("rollback", target, namespace="shop", to_revision=41)
    with sessions() as s, s.begin():
        return request_remediation(
            s,
            action,
            proposal_hash=proposal_hash(action),
            prediction=PREDICTION,
            action_class=None,
            investigation_id=investigation_id,
            settings=WorldModelSettings(),
            ttl=timedelta(minutes=30),
        )


def test_the_same_action_from_two_investigations_is_one_request(sessions: sessionmaker[Session]) -> None:
    first = _propose(sessions, "inv-1")
    second = _propose(sessions, "inv-2")
    other = _propose(sessions, "inv-3", target="cart")
    assert first is not None and second == first and other not in (None, first)
    with sessions() as s:
        assert len(s.scalars(select(ApprovalRow)).all()) == 2
        kinds = [r.kind for r in s.scalars(select(AuditRow).order_by(AuditRow.id))]
    assert kinds.count("approval.deduplicated") == 1


def test_a_decided_request_does_not_swallow_a_new_proposal(sessions: sessionmaker[Session]) -> None:
    first = _propose(sessions, "inv-1")
    assert first is not None
    with sessions() as s, s.begin():
        decide(s, first, add_user(s, "anna", Role.APPROVER), "reject", via="api")
    again = _propose(sessions, "inv-2")
    assert again is not None and again != first
