"""The learning loop of issue 21: why a judging fell back to the rubric, and each investigation's prompt arms.

`judge_scores.note` names why the rubric stood in for a configured judge model;
`investigation_prompts` keeps, per investigation, the prompt version it ran
with and, for a trial sample, the trial and arm it was routed to.

Revision ID: 0015_judge_loop_21
Revises: 0014_judge_trials
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_judge_loop_21"
down_revision = "0014_judge_trials"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("judge_scores") as table:
        table.add_column(sa.Column("note", sa.Text(), nullable=False, server_default=""))
    op.create_table(
        "investigation_prompts",
        sa.Column("investigation_id", sa.String(64), nullable=False),
        sa.Column("prompt_version", sa.String(200), nullable=False),
        sa.Column("variants", sa.Text(), nullable=False),
        sa.Column("trial_id", sa.String(64), nullable=False),
        sa.Column("arm", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("investigation_id", name="pk_investigation_prompts"),
    )
    op.create_index("ix_investigation_prompts_trial", "investigation_prompts", ["trial_id", "arm"])


def downgrade() -> None:
    op.drop_index("ix_investigation_prompts_trial", table_name="investigation_prompts")
    op.drop_table("investigation_prompts")
    with op.batch_alter_table("judge_scores") as table:
        table.drop_column("note")
