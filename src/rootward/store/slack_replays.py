"""Request signatures already seen, in the database: replay refusal that survives restarts.

Slack's signed requests and Grafana's timestamped webhook signatures (keyed
`grafana:<signature>`) share the table: both are "this exact signed request
came before", kept for as long as its timestamp would still be accepted.

Slack signs `v0:<timestamp>:<body>`, and a request older than five minutes is
stale anyway, so a signature only has to be remembered for that long. Keeping
it here rather than in the process means a replay is refused by any API
replica and after a restart. One insert per signed request; the unique key
decides, so two replicas seeing the same request at once cannot both accept it.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

from sqlalchemy import DateTime, String, delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.store.base import Base


class SlackReplayRow(Base):
    __tablename__ = "slack_replays"

    signature_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, index=True)


def _hash(signature: str) -> str:
    return hashlib.sha256(signature.encode()).hexdigest()


def seen(session: Session, signature: str, since: datetime) -> bool:
    """Whether the signature was recorded at or after `since` (nothing is written)."""
    found = session.scalar(
        select(SlackReplayRow.signature_hash).where(
            SlackReplayRow.signature_hash == _hash(signature), SlackReplayRow.seen_at >= since
        )
    )
    return found is not None


def first_sighting(session: Session, signature: str, at: datetime, keep: timedelta) -> bool:
    """Record the signature; False when it was recorded before (within `keep`)."""
    session.execute(delete(SlackReplayRow).where(SlackReplayRow.seen_at < at - keep))
    values = {"signature_hash": _hash(signature), "seen_at": at.astimezone(UTC)}
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    statement = insert(SlackReplayRow).values(values).on_conflict_do_nothing()
    return session.execute(statement.returning(SlackReplayRow.signature_hash)).scalar() is not None
