"""Approval requests for remediation proposals, and what became of them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Index, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.domain.proposal import ProposedAction
from rootward.domain.proposal_state import ApprovalFacts
from rootward.store.base import Base


class ApprovalRow(Base):
    __tablename__ = "approvals"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    investigation_id: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    proposal_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    action_json: Mapped[str] = mapped_column(Text, nullable=False)  # canonical JSON the prediction is keyed by
    prediction: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    # pending | approved | rejected | expired | executing | executed | failed | refused
    status: Mapped[str] = mapped_column(String(16), nullable=False)
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    decided_by: Mapped[str | None] = mapped_column(String(120), nullable=True)
    decided_via: Mapped[str | None] = mapped_column(
        String(16), nullable=True
    )  # console | api | slack | matrix | cli | autonomy
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    executed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # dry run, pre/post state, error
    verdict: Mapped[str | None] = mapped_column(String(16), nullable=True)  # match | partial | deviation

    __table_args__ = (Index("ix_approvals_status", "status"), Index("ix_approvals_investigation", "investigation_id"))


def approval_facts(row: ApprovalRow) -> ApprovalFacts:
    """The row as the plain data `domain.proposal_state` joins with the result's proposals."""
    return ApprovalFacts(
        id=row.id,
        proposal_hash=row.proposal_hash,
        action=ProposedAction.model_validate_json(row.action_json),
        status=row.status,
        decided_by=row.decided_by,
        decided_via=row.decided_via,
        verdict=row.verdict,
        prediction=row.prediction or {},
    )


def approvals_of(session: Session, investigation_id: str) -> list[ApprovalRow]:
    """The investigation's approval requests, oldest first."""
    query = select(ApprovalRow).where(ApprovalRow.investigation_id == investigation_id)
    return list(session.scalars(query.order_by(ApprovalRow.requested_at)))
