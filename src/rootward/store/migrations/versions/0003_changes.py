"""Changes: deploys and config changes recorded through POST /api/v1/changes.

Revision ID: 0003_changes
Revises: 0001_foundation
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_changes"
down_revision = "0001_foundation"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "changes",
        sa.Column("id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("service", sa.String(200), nullable=False),
        sa.Column("time", TS, nullable=False),
        sa.Column("version", sa.String(200), nullable=False),
        sa.Column("author", sa.String(200), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("diff", sa.Text(), nullable=False),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("received_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_changes"),
    )
    op.create_index("ix_changes_service_time", "changes", ["service", "time"])
    op.create_index("ix_changes_time", "changes", ["time"])


def downgrade() -> None:
    op.drop_index("ix_changes_time", table_name="changes")
    op.drop_index("ix_changes_service_time", table_name="changes")
    op.drop_table("changes")
