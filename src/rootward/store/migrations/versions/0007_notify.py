"""Notification outbox.

Revision ID: 0007_notify
Revises: 0001_foundation
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_notify"
down_revision = "0001_foundation"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "notification_outbox",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("channel", sa.String(64), nullable=False),
        sa.Column("key", sa.String(128), nullable=False),
        sa.Column("investigation_id", sa.String(64), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("receipt", sa.String(256), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("next_attempt_at", TS, nullable=False),
        sa.Column("delivered_at", TS, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_notification_outbox"),
    )
    op.create_index("ix_outbox_channel_status_id", "notification_outbox", ["channel", "status", "id"])
    op.create_index("uq_outbox_channel_key", "notification_outbox", ["channel", "key"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_outbox_channel_key", table_name="notification_outbox")
    op.drop_index("ix_outbox_channel_status_id", table_name="notification_outbox")
    op.drop_table("notification_outbox")
