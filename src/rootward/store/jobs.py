"""Tables of the durable investigation queue: jobs, step checkpoints, worker heartbeats.

Everything a worker needs to resume someone else's investigation lives here, so
no worker holds state that a second process would miss (DESIGN.md, "Storage and
scale"). Times are UTC: `timestamptz` on PostgreSQL, naive UTC on SQLite (which
has no time zones), always handed back timezone-aware, so comparisons agree.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from rootward.store.base import Base

JOB_STATUSES = ("queued", "running", "done", "failed", "expired")
FINAL_STATUSES = ("done", "failed", "expired")


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored as naive UTC and read back as aware UTC, on every backend."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column; use an aware datetime")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Job(Base):
    """One investigation of one alert group, from enqueue to its final status.

    `attempts` doubles as the fencing token of the lease: every claim bumps it,
    and every write a worker makes for the job names the attempt it holds, so a
    worker whose lease was taken over cannot write even if it reuses an owner id.
    """

    __tablename__ = "investigation_jobs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    group_id: Mapped[str] = mapped_column(String(64), index=True)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    priority: Mapped[int] = mapped_column(Integer)  # severity rank: 0 (P0) runs first
    tier: Mapped[str] = mapped_column(String(8))
    enqueued_at: Mapped[datetime] = mapped_column(UTCDateTime())
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(128), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_step: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text, default=None)

    __table_args__ = (
        # The claim query: candidates by status, best priority first, then FIFO.
        Index("ix_investigation_jobs_claim", "status", "priority", "enqueued_at"),
    )


class Checkpoint(Base):
    """The state after one completed step; written in the transaction that completes the step."""

    __tablename__ = "investigation_checkpoints"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("investigation_jobs.id", ondelete="CASCADE"))
    step_index: Mapped[int] = mapped_column(Integer)
    step_name: Mapped[str] = mapped_column(String(64))
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    worker_id: Mapped[str] = mapped_column(String(128))
    attempt: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())

    __table_args__ = (
        # A step completes once per job: a second writer fails instead of forking the history.
        UniqueConstraint("job_id", "step_index", name="uq_investigation_checkpoints_job_step"),
    )


class WorkerHeartbeat(Base):
    """A live worker process; `/readyz` and `investigations show` read it."""

    __tablename__ = "worker_heartbeats"

    worker_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    slots: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_beat: Mapped[datetime] = mapped_column(UTCDateTime())
