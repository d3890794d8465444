"""An incident's life cycle: acknowledge, assign, resolve with its confirmed root cause, and the timeline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select

from rootward.domain.investigation import HypothesisOut, InvestigationResult
from rootward.store.base import Base
from rootward.store.db import make_engine, make_session_factory
from rootward.store.incident_events import LifecycleRefused, Resolution, acknowledge, assign, resolve
from rootward.store.incident_timeline import timeline
from rootward.store.investigations import FeedbackRow, IncidentFilter, list_investigations, save_investigation

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _incident(session, created_at: datetime = T0):  # type: ignore[no-untyped-def]
    top = HypothesisOut(id="H1", entity="payment", fault_type="config_error", status="validated", confidence=0.8)
    result = InvestigationResult(bundle="b", status="validated", hypotheses=[top])
    return save_investigation(
        session, result, title="HighErrorRate on checkout", service="checkout", created_at=created_at
    )


def test_acknowledge_assign_resolve_move_the_state_and_fill_the_timeline(migrated_db_url: str) -> None:
    sessions = make_session_factory(make_engine(migrated_db_url))
    with sessions() as s, s.begin():
        row = _incident(s)
        acknowledge(s, row.id, "rita", at=T0 + timedelta(minutes=1))
        assert (row.state, row.assignee) == ("acknowledged", "rita")
        assign(s, row.id, "sam", "rita", at=T0 + timedelta(minutes=2))
        resolve(s, row.id, "sam", Resolution(note="reverted config-7596"), at=T0 + timedelta(minutes=9))
        assert (row.state, row.resolved_entity, row.resolved_fault) == ("resolved", "payment", "config_error")
        [feedback] = s.scalars(select(FeedbackRow)).all()
        assert (feedback.verdict, feedback.by, feedback.note) == ("accepted", "sam", "reverted config-7596")
        with pytest.raises(LifecycleRefused, match="already resolved"):
            resolve(s, row.id, "sam", Resolution())
        kinds = [(e.kind, e.by) for e in timeline(s, row)]
    assert kinds == [
        ("investigation", ""),
        ("acknowledged", "rita"),
        ("assigned", "rita"),
        ("resolved", "sam"),
    ]


def test_resolving_with_another_root_cause_records_the_correction(migrated_db_url: str) -> None:
    sessions = make_session_factory(make_engine(migrated_db_url))
    with sessions() as s, s.begin():
        row = _incident(s)
        resolve(s, row.id, "sam", Resolution(entity="payment-db", fault_type="db_lock_contention"))
        [feedback] = s.scalars(select(FeedbackRow)).all()
        assert (feedback.verdict, feedback.corrected_entity, feedback.corrected_fault) == (
            "wrong",
            "payment-db",
            "db_lock_contention",
        )
        other = _incident(s, T0 + timedelta(hours=1))
        resolve(s, other.id, "sam", Resolution(fault_type="connection_pool_exhaustion"))
        assert s.scalars(select(FeedbackRow.verdict).where(FeedbackRow.investigation_id == other.id)).one() == "edited"


def test_the_list_filters_by_state(migrated_db_url: str) -> None:
    sessions = make_session_factory(make_engine(migrated_db_url))
    with sessions() as s, s.begin():
        first, second = _incident(s), _incident(s, T0 + timedelta(minutes=5))
        acknowledge(s, second.id, "rita")
    with sessions() as s:
        assert [r.id for r in list_investigations(s, IncidentFilter(state="open"))] == [first.id]
        assert [r.id for r in list_investigations(s, IncidentFilter(state="acknowledged"))] == [second.id]
        assert [r.id for r in list_investigations(s, IncidentFilter(source="simulated"))] == []


def test_the_life_cycle_migration_matches_the_models(migrated_db_url: str) -> None:
    engine = make_engine(migrated_db_url)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    engine.dispose()
    columns = {"source", "state", "assignee", "resolved_at", "resolved_entity", "resolved_fault"}

    def mine(entry: object) -> bool:
        op = entry[0] if isinstance(entry, list) else entry
        assert isinstance(op, tuple)
        if op[0] in ("add_table", "remove_table", "add_index", "remove_index"):
            return getattr(getattr(op[1], "table", op[1]), "name", "") in ("incident_events",)
        return len(op) > 3 and op[2] == "investigations" and op[3] in columns

    assert [d for d in diff if mine(d)] == []
