"""An incident's life cycle: acknowledged, assigned, resolved (with its confirmed root cause), and its timeline.

Each change is a row of `incident_events` and an audit row; the incident's
current `state` and `assignee` live on its investigation row so the list can
filter on them. Resolving with a confirmed root cause also records it as RCA
feedback (accepted, or edited with the corrected cause), the record the
quality page, the golden export and the learners already read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import DateTime, Index, Integer, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.store.audit import append_audit
from rootward.store.base import Base
from rootward.store.investigations import InvestigationRow, add_feedback

STATES = ("open", "acknowledged", "resolved")


class IncidentEventRow(Base):
    __tablename__ = "incident_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    investigation_id: Mapped[str] = mapped_column(String(64), nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    kind: Mapped[str] = mapped_column(String(32), nullable=False)  # acknowledged | assigned | resolved | reopened
    by: Mapped[str] = mapped_column(String(120), nullable=False, default="")
    detail: Mapped[str] = mapped_column(Text, nullable=False, default="")

    __table_args__ = (Index("ix_incident_events_investigation", "investigation_id", "at"),)


class LifecycleRefused(ValueError):
    """The change cannot be made (unknown incident, already resolved, ...); the message says why."""


@dataclass(frozen=True)
class Resolution:
    """The root cause a responder confirms on resolving; empty fields mean "the top hypothesis was right"."""

    entity: str = ""
    fault_type: str = ""
    note: str = ""


def _incident(session: Session, investigation_id: str) -> InvestigationRow:
    row = session.get(InvestigationRow, investigation_id)
    if row is None:
        raise LifecycleRefused(f"no investigation {investigation_id}")
    return row


def _event(session: Session, row: InvestigationRow, kind: str, by: str, detail: str, at: datetime | None) -> None:
    session.add(IncidentEventRow(investigation_id=row.id, at=at or datetime.now(UTC), kind=kind, by=by, detail=detail))
    append_audit(session, f"incident.{kind}", row.id, {"by": by, "detail": detail})


def acknowledge(session: Session, investigation_id: str, by: str, *, at: datetime | None = None) -> InvestigationRow:
    row = _incident(session, investigation_id)
    if row.state == "resolved":
        raise LifecycleRefused("the incident is already resolved")
    if row.state == "open":
        row.state = "acknowledged"
        row.assignee = row.assignee or by
        _event(session, row, "acknowledged", by, f"assigned to {row.assignee}", at)
    return row


def assign(
    session: Session, investigation_id: str, assignee: str, by: str, *, at: datetime | None = None
) -> InvestigationRow:
    row = _incident(session, investigation_id)
    if not assignee.strip():
        raise LifecycleRefused("name the person to assign the incident to")
    row.assignee = assignee.strip()
    row.state = "acknowledged" if row.state == "open" else row.state
    _event(session, row, "assigned", by, f"assigned to {row.assignee}", at)
    return row


def resolve(
    session: Session, investigation_id: str, by: str, resolution: Resolution, *, at: datetime | None = None
) -> InvestigationRow:
    """Resolved with the confirmed root cause, which is also the RCA's feedback (accepted or edited)."""
    row = _incident(session, investigation_id)
    if row.state == "resolved":
        raise LifecycleRefused("the incident is already resolved")
    entity = resolution.entity.strip() or row.top_entity
    fault = resolution.fault_type.strip() or row.top_fault
    if not entity:
        raise LifecycleRefused("name the confirmed root cause entity: the investigation had no hypothesis")
    # The top hypothesis right: accepted; right entity, other fault: edited; another entity: wrong.
    same = (entity, fault) == (row.top_entity, row.top_fault)
    verdict = "accepted" if same else ("edited" if entity == row.top_entity else "wrong")
    add_feedback(
        session,
        row.id,
        target="rca",
        verdict=verdict,
        by=by,
        corrected_entity=None if same else entity,
        corrected_fault=None if same else (fault or None),
        note=resolution.note,
    )
    row.state, row.resolved_at = "resolved", at or datetime.now(UTC)
    row.resolved_entity, row.resolved_fault = entity, fault or None
    row.assignee = row.assignee or by
    note = f": {resolution.note}" if resolution.note else ""
    _event(session, row, "resolved", by, f"root cause {entity} {fault}".strip() + note, at)
    return row


def events_of(session: Session, investigation_id: str) -> list[IncidentEventRow]:
    query = select(IncidentEventRow).where(IncidentEventRow.investigation_id == investigation_id)
    return list(session.scalars(query.order_by(IncidentEventRow.at, IncidentEventRow.id)))
