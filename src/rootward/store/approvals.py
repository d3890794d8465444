"""Approval requests for remediation proposals, and what became of them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

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
    decided_via: Mapped[str | None] = mapped_column(String(16), nullable=True)  # api | slack | matrix | autonomy
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    executed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # dry run, pre/post state, error
    verdict: Mapped[str | None] = mapped_column(String(16), nullable=True)  # match | partial | deviation

    __table_args__ = (Index("ix_approvals_status", "status"), Index("ix_approvals_investigation", "investigation_id"))
