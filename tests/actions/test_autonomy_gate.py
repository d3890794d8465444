from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.approvals import DecisionOutcome, decide, request_approval
from rootward.actions.autonomy_gate import AUTONOMY_USER, approve_if_earned
from rootward.actions.executor import Executor
from rootward.domain.roles import Role
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.users import User, add_user, create_token
from rootward.store.worldmodel import DbPredictionLedger, save_proposals
from rootward.worldmodel.prediction_gate import ProposedAction, commit_prediction, proposal_hash
from rootward.worldmodel.settings import WorldModelSettings
from tests.actions.recording_backend import Clock, RecordingBackend, add_alert, restart_prediction

ACTION = ProposedAction.of("restart", "payment", namespace="shop")
KLASS = "restart:service"
N = 3


class Ladder:
    """The pipeline's side (request + autonomy gate) and the executor's side, on one clock."""

    def __init__(self, sessions: sessionmaker[Session], settings: WorldModelSettings) -> None:
        self.sessions = sessions
        self.settings = settings
        self.clock = Clock()
        self.backend = RecordingBackend()
        self.executor = Executor(
            sessions,
            DbPredictionLedger,
            {"restart": self.backend},
            allowlist={"restart"},
            worldmodel=settings,
            clock=self.clock,
        )
        with sessions() as s, s.begin():
            self.human: User = add_user(s, "anna", Role.APPROVER)

    def request(self) -> tuple[str, DecisionOutcome | None]:
        """What the pipeline does for a proposal: store it, request approval, ask the autonomy gate."""
        with self.sessions() as s, s.begin():
            ledger = DbPredictionLedger(s)
            commit_prediction(ledger, ACTION, restart_prediction())
            save_proposals(
                s,
                "inv",
                [
                    {
                        "action": ACTION.model_dump(mode="json"),
                        "action_class": KLASS,
                        "proposal_hash": proposal_hash(ACTION),
                        "status": "pending_approval",
                    }
                ],
            )
            row = request_approval(s, ACTION, ledger, investigation_id="inv", now=self.clock.now)
            assert isinstance(row, ApprovalRow)
            return row.id, approve_if_earned(s, row, KLASS, self.settings, now=self.clock.now)

    def run_and_judge(self, *, deviate: bool = False) -> str:
        executed = self.executor.run_once()
        assert [status for _, status in executed] == ["executed"]
        if deviate:
            with self.sessions() as s, s.begin():
                add_alert(s, "inventory", "ErrorRateHigh", self.clock.now + timedelta(seconds=30))
        self.clock.advance(601)
        (verdict,) = self.executor.verify_due()
        return verdict.outcome

    def by_human(self, approval_id: str) -> None:
        with self.sessions() as s, s.begin():
            assert decide(s, approval_id, self.human, "approve", via="api", now=self.clock.now).ok

    def audit_kinds(self) -> list[str]:
        with self.sessions() as s:
            return [r.kind for r in s.scalars(select(AuditRow).order_by(AuditRow.id))]


def _earn(ladder: Ladder, matches: int) -> None:
    for _ in range(matches):
        approval_id, auto = ladder.request()
        assert auto is None
        ladder.by_human(approval_id)
        assert ladder.run_and_judge() == "match"


def test_autonomy_is_granted_only_after_n_matches(sessions: sessionmaker[Session]) -> None:
    ladder = Ladder(sessions, WorldModelSettings(autonomous_classes=[KLASS], autonomy_window=N))
    _earn(ladder, N - 1)
    approval_id, auto = ladder.request()
    assert auto is None  # N-1 matches: still a human
    ladder.by_human(approval_id)
    assert ladder.run_and_judge() == "match"
    approval_id, auto = ladder.request()
    assert auto is not None and auto.ok and auto.status == "approved"
    with sessions() as s:
        row = s.get(ApprovalRow, approval_id)
        assert row is not None and (row.decided_by, row.decided_via) == (AUTONOMY_USER.name, "autonomy")
    assert ladder.run_and_judge() == "match"
    assert ladder.backend.executed == N + 1
    kinds = ladder.audit_kinds()
    assert kinds.count("autonomy.granted") == 1 and "autonomy.approved" in kinds
    with sessions() as s:
        assert verify_chain(s).ok


def test_one_deviation_revokes_autonomy(sessions: sessionmaker[Session]) -> None:
    ladder = Ladder(sessions, WorldModelSettings(autonomous_classes=[KLASS], autonomy_window=N))
    _earn(ladder, N)
    _, auto = ladder.request()
    assert auto is not None and auto.ok
    assert ladder.run_and_judge(deviate=True) == "deviation"
    assert "autonomy.revoked" in ladder.audit_kinds()
    approval_id, auto = ladder.request()
    assert auto is None
    with sessions() as s:
        row = s.get(ApprovalRow, approval_id)
        assert row is not None and row.status == "pending"


def test_a_deviation_after_autonomous_approval_stops_the_execution(sessions: sessionmaker[Session]) -> None:
    ladder = Ladder(sessions, WorldModelSettings(autonomous_classes=[KLASS], autonomy_window=N))
    _earn(ladder, N)
    _, first = ladder.request()
    assert first is not None and first.ok
    ladder.executor.run_once()
    second_id, second = ladder.request()  # approved unattended while the first is still in its window
    assert second is not None and second.ok
    with sessions() as s, s.begin():
        add_alert(s, "inventory", "ErrorRateHigh", ladder.clock.now + timedelta(seconds=10))
    ladder.clock.advance(601)
    assert [v.outcome for v in ladder.executor.verify_due()] == ["deviation"]
    before = ladder.backend.executed
    assert ladder.executor.run_once() == [(second_id, "refused")]
    assert ladder.backend.executed == before
    with sessions() as s:
        row = s.get(ApprovalRow, second_id)
        assert row is not None and row.result is not None and row.result["refused"] == "autonomy_revoked"


def test_the_class_is_looked_up_from_the_stored_proposal_when_not_given(sessions: sessionmaker[Session]) -> None:
    ladder = Ladder(sessions, WorldModelSettings(autonomous_classes=[KLASS], autonomy_window=N))
    _earn(ladder, N)
    with sessions() as s, s.begin():
        row = request_approval(s, ACTION, DbPredictionLedger(s), investigation_id="inv", now=ladder.clock.now)
        assert isinstance(row, ApprovalRow)
        outcome = approve_if_earned(s, row, None, ladder.settings, now=ladder.clock.now)
        assert outcome is not None and outcome.ok


def test_never_for_a_class_that_is_not_opted_in(sessions: sessionmaker[Session]) -> None:
    ladder = Ladder(sessions, WorldModelSettings(autonomous_classes=["scale:service"], autonomy_window=N))
    _earn(ladder, N + 2)
    approval_id, auto = ladder.request()
    assert auto is None
    assert "autonomy.approved" not in ladder.audit_kinds()
    assert "autonomy.checked" in ladder.audit_kinds()


def test_the_kill_switch_overrides_earned_autonomy(sessions: sessionmaker[Session]) -> None:
    ladder = Ladder(sessions, WorldModelSettings(autonomous_classes=[KLASS], autonomy_window=N))
    _earn(ladder, N)
    with sessions() as s, s.begin():
        row = s.scalars(select(ApprovalRow).where(ApprovalRow.status == "executed")).first()
        assert row is not None
        off = WorldModelSettings(autonomous_classes=[KLASS], autonomy_window=N, disabled=True)
        assert approve_if_earned(s, row, KLASS, off) is None


def test_nobody_can_sign_in_as_the_autonomy_identity(sessions: sessionmaker[Session]) -> None:
    with sessions() as s, pytest.raises(ValueError):
        create_token(s, AUTONOMY_USER.name)
