"""Signed approval links already used: each link decides at most once, on any replica, after a restart.

A link (notify/approval_links.py) carries a random nonce; the first decision
made through it inserts the nonce's hash here, and the unique key refuses
the second, so two clicks racing on two replicas cannot both go through.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from sqlalchemy import DateTime, String
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.store.base import Base


class ApprovalLinkUseRow(Base):
    __tablename__ = "approval_link_uses"

    nonce_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    approval_id: Mapped[str] = mapped_column(String(64), nullable=False)
    used_by: Mapped[str] = mapped_column(String(200), nullable=False)
    used_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


def first_use(session: Session, nonce: str, approval_id: str, user: str, at: datetime) -> bool:
    """Record the link's use; False when it was used before."""
    values = {
        "nonce_hash": hashlib.sha256(nonce.encode()).hexdigest(),
        "approval_id": approval_id,
        "used_by": user,
        "used_at": at.astimezone(UTC),
    }
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    statement = insert(ApprovalLinkUseRow).values(values).on_conflict_do_nothing()
    return session.execute(statement.returning(ApprovalLinkUseRow.nonce_hash)).scalar() is not None
