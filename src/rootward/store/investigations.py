"""Finished investigations as the console and `rootward show` read them, and their feedback.

One row per investigation: the spec's result JSON, what the console needs to
list and filter 10,000 of them quickly (service, severity, tier, status,
timings, indexed), and the raw data behind metric and log citations
(`evidence_data`), so a citation can be shown without the source being up.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, Index, Integer, String, Text, and_, case, func, select, text
from sqlalchemy.orm import Mapped, Session, defer, mapped_column
from sqlalchemy.sql.elements import ColumnElement

from rootward.domain.investigation import InvestigationResult
from rootward.store.base import Base
from rootward.store.ids import new_id


class InvestigationRow(Base):
    __tablename__ = "investigations"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    job_id: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    group_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    bundle: Mapped[str] = mapped_column(String(200), nullable=False, default="")
    bundle_path: Mapped[str | None] = mapped_column(Text, nullable=True)  # the data it ran on, for export
    title: Mapped[str] = mapped_column(Text, nullable=False, default="")
    service: Mapped[str] = mapped_column(String(200), nullable=False, default="")
    severity: Mapped[str] = mapped_column(String(4), nullable=False, default="P2")
    tier: Mapped[str] = mapped_column(String(4), nullable=False, default="L1")
    status: Mapped[str] = mapped_column(String(16), nullable=False)  # validated | inconclusive | failed
    shadow: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    top_entity: Mapped[str] = mapped_column(String(200), nullable=False, default="")
    top_fault: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    confidence: Mapped[float | None] = mapped_column(nullable=True)
    first_hypothesis_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    total_ms: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    result: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    evidence_data: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    # live | simulated (the demo's simulator) | replay (another replayed bundle) | imported (`rootward import`)
    source: Mapped[str] = mapped_column(String(16), nullable=False, default="live", server_default="live")
    state: Mapped[str] = mapped_column(String(16), nullable=False, default="open", server_default="open")
    assignee: Mapped[str | None] = mapped_column(String(120), nullable=True)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    resolved_entity: Mapped[str | None] = mapped_column(String(200), nullable=True)
    resolved_fault: Mapped[str | None] = mapped_column(String(64), nullable=True)

    @property
    def simulated(self) -> bool:
        """Made by the simulator: shown with a marker, never learned from, never filed as knowledge."""
        return self.source == "simulated"

    @property
    def investigation(self) -> InvestigationResult:
        """The stored result as the typed record (older rows lack newer optional keys: their defaults)."""
        return InvestigationResult.model_validate(self.result)

    __table_args__ = (
        Index("ix_investigations_created", "created_at"),
        Index("ix_investigations_service_created", "service", "created_at"),
        Index("ix_investigations_status_created", "status", "created_at"),
        Index("ix_investigations_source_created", "source", "created_at"),
        Index("ix_investigations_state_created", "state", "created_at"),
    )


class FeedbackRow(Base):
    __tablename__ = "feedback"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    investigation_id: Mapped[str] = mapped_column(String(64), nullable=False, index=True)
    target: Mapped[str] = mapped_column(String(16), nullable=False)  # rca | proposal
    verdict: Mapped[str] = mapped_column(String(16), nullable=False)  # accepted | edited | wrong
    corrected_entity: Mapped[str | None] = mapped_column(String(200), nullable=True)
    corrected_fault: Mapped[str | None] = mapped_column(String(64), nullable=True)
    note: Mapped[str] = mapped_column(Text, nullable=False, default="")
    by: Mapped[str] = mapped_column(String(120), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)

    # Covers the /quality aggregates (migration 0011_console_quality).
    __table_args__ = (Index("ix_feedback_quality", "target", "investigation_id", "verdict", "corrected_entity"),)


def save_investigation(
    session: Session,
    result: InvestigationResult,
    *,
    title: str,
    service: str,
    severity: str = "P2",
    tier: str = "L1",
    shadow: bool = False,
    job_id: str | None = None,
    group_id: str | None = None,
    evidence_data: dict[str, Any] | None = None,
    investigation_id: str | None = None,
    created_at: datetime | None = None,
    bundle_path: str | None = None,
    source: str = "live",
) -> InvestigationRow:
    """Keep `result` (as the spec's JSON) with the indexed columns the console lists and filters by.

    The listed cause is the leading hypothesis the evidence did not rule out: an invalidated one is
    never shown as the root cause (none left: the list shows none)."""
    top = next((h for h in result.hypotheses if h.status != "invalidated"), None)
    row = InvestigationRow(
        id=investigation_id or new_id(),
        job_id=job_id,
        group_id=group_id,
        bundle=result.bundle,
        bundle_path=bundle_path,
        title=title,
        service=service,
        severity=severity,
        tier=tier,
        status=result.status,
        shadow=shadow,
        top_entity=top.entity if top else "",
        top_fault=top.fault_type if top else "",
        confidence=top.confidence if top else None,
        first_hypothesis_ms=result.timing.first_hypothesis_ms,
        total_ms=result.timing.total_ms,
        result=result.model_dump(mode="json"),
        evidence_data=evidence_data or {},
        created_at=created_at or datetime.now(UTC),
        source=source,
    )
    session.add(row)
    session.flush()
    return row


@dataclass(frozen=True)
class IncidentFilter:
    status: str | None = None
    service: str | None = None
    severity: str | None = None
    tier: str | None = None
    state: str | None = None  # open | acknowledged | resolved
    source: str | None = None  # live | simulated | replay | imported


def list_investigations(
    session: Session, flt: IncidentFilter | None = None, *, limit: int = 50, before: datetime | None = None
) -> list[InvestigationRow]:
    flt = flt or IncidentFilter()
    # A list row needs the indexed columns only: leave the result and evidence JSON (tens of kB each) unread.
    query = (
        select(InvestigationRow)
        .options(defer(InvestigationRow.result), defer(InvestigationRow.evidence_data))
        .order_by(InvestigationRow.created_at.desc())
        .limit(limit)
    )
    for column, value in (
        (InvestigationRow.status, flt.status),
        (InvestigationRow.service, flt.service),
        (InvestigationRow.severity, flt.severity),
        (InvestigationRow.tier, flt.tier),
        (InvestigationRow.state, flt.state),
        (InvestigationRow.source, flt.source),
    ):
        if value:
            query = query.where(column == value)
    if before is not None:
        query = query.where(InvestigationRow.created_at < before)
    return list(session.scalars(query))


def add_feedback(
    session: Session,
    investigation_id: str,
    *,
    target: str,
    verdict: str,
    by: str,
    corrected_entity: str | None = None,
    corrected_fault: str | None = None,
    note: str = "",
) -> FeedbackRow:
    if target not in ("rca", "proposal"):
        raise ValueError("feedback target must be 'rca' or 'proposal'")
    if verdict not in ("accepted", "edited", "wrong"):
        raise ValueError("feedback verdict must be 'accepted', 'edited' or 'wrong'")
    if verdict == "wrong" and target == "rca" and not corrected_entity:
        raise ValueError("a wrong RCA needs the corrected root cause entity")
    row = FeedbackRow(
        id=new_id(),
        investigation_id=investigation_id,
        target=target,
        verdict=verdict,
        corrected_entity=corrected_entity,
        corrected_fault=corrected_fault,
        note=note,
        by=by,
        created_at=datetime.now(UTC),
    )
    session.add(row)
    session.flush()
    return row


@dataclass(frozen=True)
class ServiceQuality:
    service: str
    investigations: int
    rated: int
    accepted: int
    false_escalations: int  # inconclusive although feedback names a root cause among its hypotheses

    @property
    def acceptance_rate(self) -> float | None:
        return self.accepted / self.rated if self.rated else None


def _corrected_among_hypotheses(session: Session) -> ColumnElement[bool]:
    """SQL: the feedback's corrected entity is one of the investigation's hypotheses (JSON read in the database)."""
    if session.get_bind().dialect.name == "postgresql":
        sql = (
            "EXISTS (SELECT 1 FROM json_array_elements((investigations.result)::json -> 'hypotheses') AS h "
            "WHERE h ->> 'entity' = feedback.corrected_entity)"
        )
    else:
        sql = (
            "EXISTS (SELECT 1 FROM json_each(investigations.result, '$.hypotheses') AS h "
            "WHERE json_extract(h.value, '$.entity') = feedback.corrected_entity)"
        )
    return text(sql)  # type: ignore[return-value]


def quality_by_service(session: Session) -> list[ServiceQuality]:
    """Per service: investigations, rated, accepted and false escalations, from SQL aggregates.

    The truth of a rated RCA is its top hypothesis unless the feedback says
    `wrong` and names another entity. An inconclusive investigation whose
    truth is its top hypothesis is a false escalation straight from the
    columns; only inconclusive-and-wrong ones need their hypotheses, read by the database's JSON functions.
    """
    totals = dict(
        session.execute(select(InvestigationRow.service, func.count()).group_by(InvestigationRow.service)).all()
    )
    accepted_verdict = FeedbackRow.verdict.in_(("accepted", "edited"))
    inconclusive = InvestigationRow.status == "inconclusive"
    rated_join = (
        select(InvestigationRow.service)
        .join(FeedbackRow, FeedbackRow.investigation_id == InvestigationRow.id)
        .where(FeedbackRow.target == "rca")
    )
    stats = {
        service: (int(rated), int(accepted or 0), int(escalated or 0))
        for service, rated, accepted, escalated in session.execute(
            rated_join.add_columns(
                func.count(),
                func.sum(case((accepted_verdict, 1), else_=0)),
                func.sum(
                    case(
                        (and_(inconclusive, FeedbackRow.verdict != "wrong", InvestigationRow.top_entity != ""), 1),
                        else_=0,
                    )
                ),
            ).group_by(InvestigationRow.service)
        ).all()
    }
    wrong_escalations = dict(
        session.execute(
            select(InvestigationRow.service, func.count())
            .join(FeedbackRow, FeedbackRow.investigation_id == InvestigationRow.id)
            .where(FeedbackRow.target == "rca", FeedbackRow.verdict == "wrong", inconclusive)
            .where(_corrected_among_hypotheses(session))
            .group_by(InvestigationRow.service)
        ).all()
    )
    out = []
    for service, count in sorted(totals.items()):
        rated, accepted, escalated = stats.get(service, (0, 0, 0))
        out.append(ServiceQuality(service, int(count), rated, accepted, escalated + wrong_escalations.get(service, 0)))
    return out
