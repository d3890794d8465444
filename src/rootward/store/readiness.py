"""The readiness probe's write: one row per replica, updated on every `/readyz`.

A committed write is the only proof that alerts can be stored: a read-only
database, a full disk or a PostgreSQL standby all answer `SELECT 1`. The row
is keyed by host and process, so replicas never contend for it.
"""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime

from sqlalchemy import DateTime, String
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.store.base import Base


class ReadinessProbeRow(Base):
    __tablename__ = "readiness_probes"

    replica: Mapped[str] = mapped_column(String(255), primary_key=True)
    checked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


def replica_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"[:255]


def record_probe(session: Session, *, now: datetime | None = None) -> None:
    """Upsert this replica's row in the caller's transaction (commit it to prove writes work)."""
    at = now or datetime.now(UTC)
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    statement = insert(ReadinessProbeRow).values(replica=replica_name(), checked_at=at)
    session.execute(statement.on_conflict_do_update(index_elements=["replica"], set_={"checked_at": at}))
