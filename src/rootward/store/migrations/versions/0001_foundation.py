"""Foundation: alerts, alert groups, routing decisions and the audit log.

Revision ID: 0001_foundation
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_foundation"
down_revision = None
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "alert_groups",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("service", sa.String(200), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("tier", sa.String(4), nullable=False),
        sa.Column("human", sa.Boolean(), nullable=False),
        sa.Column("severity", sa.String(4), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("opened_at", TS, nullable=False),
        sa.Column("last_alert_at", TS, nullable=False),
        sa.Column("alert_count", sa.Integer(), nullable=False),
        sa.Column("firing_count", sa.Integer(), nullable=False),
        sa.Column("investigation_job_id", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_alert_groups"),
    )
    op.create_index("ix_alert_groups_service_status", "alert_groups", ["service", "status"])
    op.create_table(
        "alerts",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("fingerprint", sa.String(128), nullable=False),
        sa.Column("group_id", sa.String(32), nullable=False),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("service", sa.String(200), nullable=False),
        sa.Column("severity", sa.String(4), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("tier", sa.String(4), nullable=False),
        sa.Column("labels", sa.JSON(), nullable=False),
        sa.Column("annotations", sa.JSON(), nullable=False),
        sa.Column("starts_at", TS, nullable=False),
        sa.Column("ends_at", TS, nullable=True),
        sa.Column("generator_url", sa.Text(), nullable=False),
        sa.Column("first_seen", TS, nullable=False),
        sa.Column("last_seen", TS, nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_alerts"),
        sa.ForeignKeyConstraint(["group_id"], ["alert_groups.id"], name="fk_alerts_group_id_alert_groups"),
    )
    op.create_index("ix_alerts_fingerprint", "alerts", ["fingerprint"])
    op.create_index("ix_alerts_group_id", "alerts", ["group_id"])
    op.create_table(
        "routing_decisions",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("alert_id", sa.String(32), nullable=False),
        sa.Column("group_id", sa.String(32), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("tier", sa.String(4), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("decided_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_routing_decisions"),
        sa.ForeignKeyConstraint(["alert_id"], ["alerts.id"], name="fk_routing_decisions_alert_id_alerts"),
        sa.ForeignKeyConstraint(["group_id"], ["alert_groups.id"], name="fk_routing_decisions_group_id_alert_groups"),
    )
    op.create_index("ix_routing_decisions_alert_id", "routing_decisions", ["alert_id"])
    op.create_index("ix_routing_decisions_group_id", "routing_decisions", ["group_id"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("subject", sa.String(200), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_audit_log"),
    )
    op.create_index("ix_audit_log_kind", "audit_log", ["kind"])
    op.create_index("ix_audit_log_subject", "audit_log", ["subject"])


def downgrade() -> None:
    op.drop_table("audit_log")
    op.drop_table("routing_decisions")
    op.drop_table("alerts")
    op.drop_table("alert_groups")
