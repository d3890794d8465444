"""Runtime: investigation jobs, step checkpoints, worker heartbeats.

Revision ID: 0002_runtime
Revises: 0001_foundation
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_runtime"
down_revision = "0001_foundation"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "investigation_jobs",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("group_id", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("tier", sa.String(8), nullable=False),
        sa.Column("enqueued_at", TS, nullable=False),
        sa.Column("started_at", TS, nullable=True),
        sa.Column("finished_at", TS, nullable=True),
        sa.Column("lease_owner", sa.String(128), nullable=True),
        sa.Column("lease_expires_at", TS, nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_step", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_investigation_jobs"),
    )
    op.create_index("ix_investigation_jobs_group_id", "investigation_jobs", ["group_id"])
    op.create_index("ix_investigation_jobs_claim", "investigation_jobs", ["status", "priority", "enqueued_at"])
    op.create_table(
        "investigation_checkpoints",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("job_id", sa.String(32), nullable=False),
        sa.Column("step_index", sa.Integer(), nullable=False),
        sa.Column("step_name", sa.String(64), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("worker_id", sa.String(128), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_investigation_checkpoints"),
        sa.ForeignKeyConstraint(
            ["job_id"],
            ["investigation_jobs.id"],
            name="fk_investigation_checkpoints_job_id_investigation_jobs",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("job_id", "step_index", name="uq_investigation_checkpoints_job_step"),
    )
    op.create_table(
        "worker_heartbeats",
        sa.Column("worker_id", sa.String(128), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("slots", sa.Integer(), nullable=False),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("last_beat", TS, nullable=False),
        sa.PrimaryKeyConstraint("worker_id", name="pk_worker_heartbeats"),
    )


def downgrade() -> None:
    op.drop_table("worker_heartbeats")
    op.drop_table("investigation_checkpoints")
    op.drop_index("ix_investigation_jobs_claim", table_name="investigation_jobs")
    op.drop_index("ix_investigation_jobs_group_id", table_name="investigation_jobs")
    op.drop_table("investigation_jobs")
