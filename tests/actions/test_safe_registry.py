"""The safe-action registry: every kind once, handlers built per investigation, outcomes audited."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.safe import SafeAction
from rootward.actions.safe_handlers import SafeActionContext
from rootward.actions.safe_registry import SAFE_ACTION_HANDLERS, run_safe_actions
from rootward.actions.settings import SAFE_ACTIONS, ActionsSettings
from rootward.store.audit import AuditRow


def _context(sessions: sessionmaker[Session], **settings: Any) -> SafeActionContext:
    filed: dict[str, str] = {}
    return SafeActionContext(
        investigation_id="inv-1",
        settings=ActionsSettings(**settings),
        sessions=sessions,
        knowledge=lambda: None,
        file_note=filed.__setitem__,
        requeue=lambda session, group, priority, tier: "job-2",
    )


def test_every_allowlistable_safe_action_kind_is_registered_exactly_once() -> None:
    assert sorted(SAFE_ACTION_HANDLERS) == sorted(SAFE_ACTIONS)


def test_a_silence_without_an_alertmanager_is_refused_as_not_configured(sessions: sessionmaker[Session]) -> None:
    [line] = run_safe_actions([SafeAction("silence_alert", {"matchers": {"alertname": "X"}})], _context(sessions))
    assert line == "silence_alert (refused): silence_alert is not configured here"


def test_each_outcome_is_described_and_audited(sessions: sessionmaker[Session]) -> None:
    actions = [
        SafeAction("annotate", {"note": "n"}, reason="a note"),
        SafeAction("query_km", {"query": "q"}),
        SafeAction("flag_for_human_review", reason="look"),
    ]
    done = run_safe_actions(actions, _context(sessions, safe_allowlist=["annotate", "query_km"]))
    assert done == [
        "annotate (done): a note",
        "query_km (done): knowledge base is empty",
        "flag_for_human_review (refused): flag_for_human_review is not on the safe-action allowlist",
    ]
    with sessions() as session:
        rows = list(session.scalars(select(AuditRow).order_by(AuditRow.id)))
    kinds = [r.kind for r in rows]
    assert kinds == ["safe_action.annotate", "safe_action.result", "safe_action.result", "safe_action.result"]
    assert all(r.subject == "inv-1" for r in rows)


def test_a_plan_without_safe_actions_runs_nothing(sessions: sessionmaker[Session]) -> None:
    assert run_safe_actions([], _context(sessions)) == []


def test_a_failed_investigation_is_retried_once_per_group(sessions: sessionmaker[Session]) -> None:
    from rootward.runtime.queue import enqueue_investigation
    from rootward.store.jobs import Job

    with sessions() as session, session.begin():
        enqueue_investigation(session, "grp-1", 1, "L2")  # the investigation that failed
    ctx = SafeActionContext(
        investigation_id="inv-1",
        settings=ActionsSettings(),
        sessions=sessions,
        knowledge=lambda: None,
        file_note=lambda path, note: None,
        requeue=enqueue_investigation,
    )
    retry = SafeAction("retry_task", {"group_id": "grp-1", "tier": "L2", "priority": 1})
    [first] = run_safe_actions([retry], ctx)
    [second] = run_safe_actions([retry], ctx)
    assert first.startswith("retry_task (done): queued investigation ") and first.endswith(" again for group grp-1")
    assert second == "retry_task (done): not retried: group grp-1 was already retried"
    with sessions() as session:
        assert len(list(session.scalars(select(Job).where(Job.group_id == "grp-1")))) == 2


def test_a_validated_rca_is_filed_as_an_incident_note(sessions: sessionmaker[Session]) -> None:
    filed: dict[str, str] = {}
    ctx = SafeActionContext(
        investigation_id="inv-1",
        settings=ActionsSettings(),
        sessions=sessions,
        knowledge=lambda: None,
        file_note=filed.__setitem__,
        requeue=lambda session, group, priority, tier: "never",
    )
    result = {
        "bundle": "b",
        "status": "validated",
        "hypotheses": [
            {
                "id": "H1",
                "entity": "payment-db",
                "fault_type": "db_lock_contention",
                "status": "validated",
                "confidence": 0.82,
            }
        ],
        "claims": [{"text": "Lock waits on payment-db rose at 12:01."}],
    }
    params = {"investigation_id": "inv-1", "title": "Latency on checkout", "service": "checkout", "result": result}
    [line] = run_safe_actions([SafeAction("route_to_km", params)], ctx)
    assert line == "route_to_km (done): filed as knowledge/incidents/inv-1.md"
    note = filed["incidents/inv-1.md"]
    assert "Root cause: payment-db db_lock_contention (validated, confidence 0.82)." in note
    assert "- Lock waits on payment-db rose at 12:01." in note and "service: checkout" in note
