"""Token and user life cycle, server-side console sessions, Slack replay cache.

`api_tokens.revoked_at` and `users.disabled_at` make revocation and disabling
take effect on the next request; `console_sessions` holds the cookie's session
(its id stored only as SHA-256) so signing out ends it on the server;
`slack_replays` remembers request signatures for five minutes across restarts
and replicas; `readiness_probes` takes `/readyz`'s proof-of-write.

Revision ID: 0012_web_sessions
Revises: 0008_actions (users and api_tokens)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_web_sessions"
down_revision = "0008_actions"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("users", sa.Column("disabled_at", TS, nullable=True))
    op.add_column("api_tokens", sa.Column("revoked_at", TS, nullable=True))
    op.create_table(
        "console_sessions",
        sa.Column("id_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("csrf_token", sa.String(64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_console_sessions_user_id_users", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["token_hash"],
            ["api_tokens.token_hash"],
            name="fk_console_sessions_token_hash_api_tokens",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id_hash", name="pk_console_sessions"),
    )
    op.create_index("ix_console_sessions_expires_at", "console_sessions", ["expires_at"])
    op.create_table(
        "slack_replays",
        sa.Column("signature_hash", sa.String(64), nullable=False),
        sa.Column("seen_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("signature_hash", name="pk_slack_replays"),
    )
    op.create_index("ix_slack_replays_seen_at", "slack_replays", ["seen_at"])
    op.create_table(
        "readiness_probes",
        sa.Column("replica", sa.String(255), nullable=False),
        sa.Column("checked_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("replica", name="pk_readiness_probes"),
    )


def downgrade() -> None:
    op.drop_table("readiness_probes")
    op.drop_index("ix_slack_replays_seen_at", table_name="slack_replays")
    op.drop_table("slack_replays")
    op.drop_index("ix_console_sessions_expires_at", table_name="console_sessions")
    op.drop_table("console_sessions")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("revoked_at")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("disabled_at")
