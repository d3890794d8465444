"""Deploys and config changes recorded by CI/CD through `POST /api/v1/changes`.

Kept so an investigation can ask "what changed near this service in the last
72 hours" without a CI system being reachable at that moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import DateTime, Index, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.domain.telemetry import Change, ChangeKind
from rootward.store.base import Base
from rootward.store.ids import new_id

CHANGE_KINDS: tuple[ChangeKind, ...] = ("deploy", "config", "infra", "feature_flag")


class ChangeRow(Base):
    __tablename__ = "changes"

    id: Mapped[str] = mapped_column(String(128), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    service: Mapped[str] = mapped_column(String(200))
    time: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    version: Mapped[str] = mapped_column(String(200), default="")
    author: Mapped[str] = mapped_column(String(200), default="")
    summary: Mapped[str] = mapped_column(Text, default="")
    diff: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(64), default="api")  # who recorded it: api, ci name...
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        Index("ix_changes_service_time", "service", "time"),
        Index("ix_changes_time", "time"),
    )


class DuplicateChange(ValueError):
    """A change with this id is already recorded (CI retried a request that had succeeded)."""


def _utc(value: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def record_change(session: Session, change: Change, *, source: str = "api", now: datetime | None = None) -> str:
    """Store `change` (empty id: a new time-ordered one) and return its id; commits."""
    change_id = change.id or new_id()
    if session.get(ChangeRow, change_id) is not None:
        raise DuplicateChange(f"change '{change_id}' is already recorded")
    session.add(
        ChangeRow(
            id=change_id,
            kind=change.kind,
            service=change.service,
            time=_utc(change.time),
            version=change.version,
            author=change.author,
            summary=change.summary,
            diff=change.diff,
            source=source,
            received_at=_utc(now or datetime.now(UTC)),
        )
    )
    session.commit()
    return change_id


def to_change(row: ChangeRow) -> Change:
    kind: ChangeKind = row.kind if row.kind in CHANGE_KINDS else "deploy"  # type: ignore[assignment]
    return Change(
        id=row.id,
        kind=kind,
        service=row.service,
        time=_utc(row.time),
        version=row.version,
        author=row.author,
        summary=row.summary,
        diff=row.diff,
    )


def changes_between(
    session: Session,
    services: Sequence[str] | None,
    start: datetime,
    end: datetime | None = None,
    *,
    limit: int = 500,
) -> list[Change]:
    """Changes of `services` (None: all) with start <= time <= end, newest first."""
    query = select(ChangeRow).where(ChangeRow.time >= _utc(start))
    if end is not None:
        query = query.where(ChangeRow.time <= _utc(end))
    if services is not None:
        query = query.where(ChangeRow.service.in_(list(services)))
    rows = session.scalars(query.order_by(ChangeRow.time.desc(), ChangeRow.id.desc()).limit(limit))
    return [to_change(row) for row in rows]
