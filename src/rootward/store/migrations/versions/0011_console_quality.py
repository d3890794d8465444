"""Covering index of RCA feedback, so /quality aggregates without touching feedback rows.

Revision ID: 0011_console_quality
Revises: 0009_console
"""

from __future__ import annotations

from alembic import op

revision = "0011_console_quality"
down_revision = "0009_console"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_feedback_quality", "feedback", ["target", "investigation_id", "verdict", "corrected_entity"])


def downgrade() -> None:
    op.drop_index("ix_feedback_quality", table_name="feedback")
