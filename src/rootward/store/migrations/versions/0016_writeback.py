"""Write-back issues per incident (Jira, GitHub) and used signed approval links (Teams).

Revision ID: 0016_writeback
Revises: 0015_judge_loop_21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_writeback"
down_revision = "0015_judge_loop_21"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "writeback_issues",
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column("incident", sa.String(64), nullable=False),
        sa.Column("issue_key", sa.String(200), nullable=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("target", "incident", name="pk_writeback_issues"),
    )
    op.create_table(
        "approval_link_uses",
        sa.Column("nonce_hash", sa.String(64), nullable=False),
        sa.Column("approval_id", sa.String(64), nullable=False),
        sa.Column("used_by", sa.String(200), nullable=False),
        sa.Column("used_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("nonce_hash", name="pk_approval_link_uses"),
    )


def downgrade() -> None:
    op.drop_table("approval_link_uses")
    op.drop_table("writeback_issues")
