"""Judge scores per investigation, and prompt trials.

Revision ID: 0014_judge_trials
Revises: 0010_llm_calls
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_judge_trials"
down_revision = "0010_llm_calls"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "judge_scores",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("investigation_id", sa.String(64), nullable=False),
        sa.Column("service", sa.String(200), nullable=False),
        sa.Column("prompt_version", sa.String(200), nullable=False),
        sa.Column("trial_id", sa.String(64), nullable=False),
        sa.Column("arm", sa.String(64), nullable=False),
        sa.Column("judge", sa.String(200), nullable=False),
        sa.Column("evidence_grounding", sa.Float(), nullable=False),
        sa.Column("root_cause_specificity", sa.Float(), nullable=False),
        sa.Column("actionability", sa.Float(), nullable=False),
        sa.Column("calibration", sa.Float(), nullable=False),
        sa.Column("clarity", sa.Float(), nullable=False),
        sa.Column("overall", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_judge_scores"),
    )
    op.create_index("ix_judge_scores_investigation", "judge_scores", ["investigation_id"])
    op.create_index("ix_judge_scores_trial", "judge_scores", ["trial_id", "arm"])
    op.create_table(
        "prompt_trials",
        sa.Column("trial_id", sa.String(64), nullable=False),
        sa.Column("template", sa.String(200), nullable=False),
        sa.Column("arms", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("promoted_arm", sa.String(64), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("trial_id", name="pk_prompt_trials"),
    )


def downgrade() -> None:
    op.drop_table("prompt_trials")
    op.drop_table("judge_scores")
