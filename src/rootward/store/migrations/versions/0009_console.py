"""Investigations (what the console lists) and feedback.

Revision ID: 0009_console
Revises: 0001_foundation
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_console"
down_revision = "0001_foundation"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "investigations",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("job_id", sa.String(64), nullable=True),
        sa.Column("group_id", sa.String(64), nullable=True),
        sa.Column("bundle", sa.String(200), nullable=False),
        sa.Column("bundle_path", sa.Text(), nullable=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("service", sa.String(200), nullable=False),
        sa.Column("severity", sa.String(4), nullable=False),
        sa.Column("tier", sa.String(4), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("shadow", sa.Boolean(), nullable=False),
        sa.Column("top_entity", sa.String(200), nullable=False),
        sa.Column("top_fault", sa.String(64), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("first_hypothesis_ms", sa.Integer(), nullable=True),
        sa.Column("total_ms", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("evidence_data", sa.JSON(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_investigations"),
    )
    op.create_index("ix_investigations_job_id", "investigations", ["job_id"])
    op.create_index("ix_investigations_created", "investigations", ["created_at"])
    op.create_index("ix_investigations_service_created", "investigations", ["service", "created_at"])
    op.create_index("ix_investigations_status_created", "investigations", ["status", "created_at"])
    op.create_table(
        "feedback",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("investigation_id", sa.String(64), nullable=False),
        sa.Column("target", sa.String(16), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("corrected_entity", sa.String(200), nullable=True),
        sa.Column("corrected_fault", sa.String(64), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("by", sa.String(120), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_feedback"),
    )
    op.create_index("ix_feedback_investigation_id", "feedback", ["investigation_id"])


def downgrade() -> None:
    op.drop_table("feedback")
    op.drop_table("investigations")
