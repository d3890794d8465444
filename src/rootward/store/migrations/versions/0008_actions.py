"""Users, API tokens and approval requests.

Revision ID: 0008_actions
Revises: 0001_foundation
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_actions"
down_revision = "0001_foundation"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("slack_user_id", sa.String(64), nullable=True),
        sa.Column("matrix_user_id", sa.String(255), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name", name="uq_users_name"),
    )
    op.create_index("ix_users_slack_user_id", "users", ["slack_user_id"])
    op.create_index("ix_users_matrix_user_id", "users", ["matrix_user_id"])
    op.create_table(
        "api_tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("label", sa.String(120), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_api_tokens_user_id_users", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("token_hash", name="pk_api_tokens"),
    )
    op.create_table(
        "approvals",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("investigation_id", sa.String(64), nullable=False),
        sa.Column("proposal_hash", sa.String(64), nullable=False),
        sa.Column("action_json", sa.Text(), nullable=False),
        sa.Column("prediction", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("requested_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("decided_by", sa.String(120), nullable=True),
        sa.Column("decided_via", sa.String(16), nullable=True),
        sa.Column("decided_at", TS, nullable=True),
        sa.Column("executed_at", TS, nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("verdict", sa.String(16), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_approvals"),
    )
    op.create_index("ix_approvals_status", "approvals", ["status"])
    op.create_index("ix_approvals_investigation", "approvals", ["investigation_id"])


def downgrade() -> None:
    op.drop_table("approvals")
    op.drop_table("api_tokens")
    op.drop_index("ix_users_matrix_user_id", table_name="users")
    op.drop_index("ix_users_slack_user_id", table_name="users")
    op.drop_table("users")
