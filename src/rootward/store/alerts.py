"""Tables of the intake: alerts, the groups they fall into, and each routing decision.

An alert row is one occurrence of a fingerprint: repeats of a firing alert
update it (`count`, `last_seen`), so the table holds what happened, not every
webhook call. A group is what gets (at most) one investigation.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from rootward.store.base import Base


def utc(value: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything rootward stores is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class AlertGroupRow(Base):
    __tablename__ = "alert_groups"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    service: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="open")  # open | resolved
    tier: Mapped[str] = mapped_column(String(4))
    human: Mapped[bool] = mapped_column(Boolean, default=False)
    severity: Mapped[str] = mapped_column(String(4))  # most severe of its alerts
    reason: Mapped[str] = mapped_column(Text, default="")
    opened_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_alert_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    alert_count: Mapped[int] = mapped_column(Integer, default=0)
    firing_count: Mapped[int] = mapped_column(Integer, default=0)  # 0: every alert resolved
    investigation_job_id: Mapped[str | None] = mapped_column(String(64), nullable=True)

    __table_args__ = (Index("ix_alert_groups_service_status", "service", "status"),)


class AlertRow(Base):
    __tablename__ = "alerts"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(128), index=True)
    group_id: Mapped[str] = mapped_column(ForeignKey("alert_groups.id"), index=True)
    source: Mapped[str] = mapped_column(String(32))  # alertmanager | generic
    name: Mapped[str] = mapped_column(String(200))
    service: Mapped[str] = mapped_column(String(200))
    severity: Mapped[str] = mapped_column(String(4))
    status: Mapped[str] = mapped_column(String(16))  # firing | resolved
    tier: Mapped[str] = mapped_column(String(4))
    labels: Mapped[dict[str, Any]] = mapped_column(JSON)
    annotations: Mapped[dict[str, Any]] = mapped_column(JSON)
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ends_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    generator_url: Mapped[str] = mapped_column(Text, default="")
    first_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    count: Mapped[int] = mapped_column(Integer, default=1)


class RoutingDecisionRow(Base):
    """Why an alert went where it went: kept for the console and for audits."""

    __tablename__ = "routing_decisions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    alert_id: Mapped[str] = mapped_column(ForeignKey("alerts.id"), index=True)
    group_id: Mapped[str] = mapped_column(ForeignKey("alert_groups.id"), index=True)
    action: Mapped[str] = mapped_column(String(32))
    tier: Mapped[str] = mapped_column(String(4))
    reason: Mapped[str] = mapped_column(Text)
    decided_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
