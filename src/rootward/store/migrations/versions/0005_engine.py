"""Engine: the working memory of investigations (specialists' findings).

Revision ID: 0005_engine
Revises: 0001_foundation
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_engine"
down_revision = "0001_foundation"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "engine_findings",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("investigation_id", sa.String(128), nullable=False),
        sa.Column("hypothesis_id", sa.String(32), nullable=False),
        sa.Column("specialist", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("evidence_json", sa.Text(), nullable=False),
        sa.Column("tool_calls_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_engine_findings"),
    )
    op.create_index("ix_engine_findings_investigation", "engine_findings", ["investigation_id", "hypothesis_id"])


def downgrade() -> None:
    op.drop_index("ix_engine_findings_investigation", table_name="engine_findings")
    op.drop_table("engine_findings")
