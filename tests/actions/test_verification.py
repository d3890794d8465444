from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.approvals import decide, request_approval
from rootward.actions.executor import Executor
from rootward.domain.roles import Role
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.users import add_user
from rootward.store.worldmodel import DbPredictionLedger, WmProposalRow, save_proposals
from rootward.worldmodel.prediction_gate import ProposedAction, commit_prediction, proposal_hash
from rootward.worldmodel.settings import WorldModelSettings
from tests.actions.recording_backend import Clock, RecordingBackend, add_alert, restart_prediction

ACTION = ProposedAction.of("restart", "payment", namespace="shop")


def _executed(
    sessions: sessionmaker[Session], clock: Clock, prediction: dict[str, object] | None = None
) -> tuple[Executor, str]:
    """An approved restart of payment, executed at `clock.now`; the engine's proposal row stored."""
    with sessions() as s, s.begin():
        ledger = DbPredictionLedger(s)
        commit_prediction(ledger, ACTION, prediction or restart_prediction())
        save_proposals(
            s,
            "inv-1",
            [
                {
                    "action": ACTION.model_dump(mode="json"),
                    "action_class": "restart:service",
                    "proposal_hash": proposal_hash(ACTION),
                    "status": "pending_approval",
                }
            ],
        )
        row = request_approval(s, ACTION, ledger, investigation_id="inv-1", now=clock.now)
        assert isinstance(row, ApprovalRow)
        anna = add_user(s, "anna", Role.APPROVER)
        assert decide(s, row.id, anna, "approve", via="api", now=clock.now).ok
        approval_id = row.id
    executor = Executor(
        sessions,
        DbPredictionLedger,
        {"restart": RecordingBackend()},
        allowlist={"restart"},
        worldmodel=WorldModelSettings(),
        clock=clock,
    )
    assert executor.run_once() == [(approval_id, "executed")]
    return executor, approval_id


def _row(sessions: sessionmaker[Session], approval_id: str) -> ApprovalRow:
    with sessions() as s:
        row = s.get(ApprovalRow, approval_id)
        assert row is not None
        s.expunge(row)
        return row


def test_no_verdict_until_the_prediction_window_has_passed(sessions: sessionmaker[Session]) -> None:
    clock = Clock()
    executor, approval_id = _executed(sessions, clock)
    clock.advance(599)
    assert executor.verify_due() == []
    assert _row(sessions, approval_id).verdict is None
    clock.advance(2)
    assert [v.outcome for v in executor.verify_due()] == ["match"]  # nothing alerted: at most what was predicted


def test_predicted_alerts_within_their_timing_are_a_match_stored_on_approval_and_proposal(
    sessions: sessionmaker[Session],
) -> None:
    clock = Clock()
    executor, approval_id = _executed(sessions, clock)
    with sessions() as s, s.begin():
        add_alert(s, "payment", "PodRestarting", clock.now + timedelta(seconds=5))
        add_alert(s, "checkout", "HighLatencyP99", clock.now + timedelta(seconds=75))
    clock.advance(601)
    (outcome,) = executor.verify_due()
    assert (outcome.outcome, outcome.action_class) == ("match", "restart:service")
    row = _row(sessions, approval_id)
    assert row.verdict == "match"
    assert row.result is not None and row.result["verdict"]["observed"] == 2
    assert row.result["pre_state"] == {"target": "payment"}  # the execution record is kept
    with sessions() as s:
        proposal = s.scalars(select(WmProposalRow)).one()
        assert proposal.verdict == "match" and proposal.verdict_detail is not None
        kinds = [r.kind for r in s.scalars(select(AuditRow).order_by(AuditRow.id))]
        assert "approval.verdict" in kinds and "worldmodel.verdict" in kinds
        assert verify_chain(s).ok
    assert executor.verify_due() == []  # judged once


def test_an_alert_on_an_unpredicted_entity_is_a_deviation(sessions: sessionmaker[Session]) -> None:
    clock = Clock()
    executor, approval_id = _executed(sessions, clock)
    with sessions() as s, s.begin():
        add_alert(s, "inventory", "ErrorRateHigh", clock.now + timedelta(seconds=40))
    clock.advance(700)
    (outcome,) = executor.verify_due()
    assert outcome.outcome == "deviation"
    assert _row(sessions, approval_id).result["verdict"]["unpredicted_entities"] == ["inventory"]  # type: ignore[index]


def test_a_predicted_entity_alerting_too_late_is_partial(sessions: sessionmaker[Session]) -> None:
    clock = Clock()
    executor, approval_id = _executed(sessions, clock)
    with sessions() as s, s.begin():
        add_alert(s, "checkout", "HighLatencyP99", clock.now + timedelta(seconds=400))  # p95 is 120 s (+60 s slack)
    clock.advance(601)
    assert [v.outcome for v in executor.verify_due()] == ["partial"]
    assert _row(sessions, approval_id).result["verdict"]["mistimed_alerts"] == ["checkout/HighLatencyP99@+400"]  # type: ignore[index]


def test_alerts_before_execution_or_after_the_window_do_not_count(sessions: sessionmaker[Session]) -> None:
    clock = Clock()
    executor, approval_id = _executed(sessions, clock)
    with sessions() as s, s.begin():
        add_alert(s, "inventory", "ErrorRateHigh", clock.now - timedelta(seconds=5))
        add_alert(s, "inventory", "ErrorRateHigh", clock.now + timedelta(seconds=650))
    clock.advance(900)
    (outcome,) = executor.verify_due()
    assert outcome.outcome == "match"
    assert _row(sessions, approval_id).result["verdict"]["observed"] == 0  # type: ignore[index]


def test_an_unreadable_prediction_is_audited_as_unverifiable_and_not_retried(sessions: sessionmaker[Session]) -> None:
    clock = Clock()
    executor, approval_id = _executed(sessions, clock, {"entities": [{"name": "payment"}], "window_s": 60})
    clock.advance(61)
    assert [v.outcome for v in executor.verify_due()] == ["unverifiable"]
    assert executor.verify_due() == []
    row = _row(sessions, approval_id)
    assert row.verdict is None and row.result["verification"]["status"] == "unverifiable"  # type: ignore[index]
    with sessions() as s:
        kinds = [
            r.kind for r in s.scalars(select(AuditRow).where(AuditRow.subject == approval_id).order_by(AuditRow.id))
        ]
        assert "verification.unverifiable" in kinds
        assert s.scalars(select(WmProposalRow.verdict)).one() is None
