"""The durable notification outbox: one row per (notification, channel).

While a row is `sending`, `attempts` is the claim's fencing token and
`next_attempt_at` the end of its lease (notify/outbox.py).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from rootward.store.base import Base


class OutboxRow(Base):
    __tablename__ = "notification_outbox"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)  # delivery order
    channel: Mapped[str] = mapped_column(String(64), nullable=False)
    key: Mapped[str] = mapped_column(String(128), nullable=False)  # idempotency key, unique per channel
    investigation_id: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    payload: Mapped[dict[str, object]] = mapped_column(JSON, nullable=False)
    # pending | sending | delivered | failed (refused for good, not retried: notify/outbox.py)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="pending")
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    receipt: Mapped[str | None] = mapped_column(String(256), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (
        Index("ix_outbox_channel_status_id", "channel", "status", "id"),
        Index("uq_outbox_channel_key", "channel", "key", unique=True),
    )
