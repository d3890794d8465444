"""World model: graph entities and edge claims, edge dynamics, predictions, proposals.

Revision ID: 0006_worldmodel
Revises: 0001_foundation
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_worldmodel"
down_revision = "0001_foundation"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "wm_entities",
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("attributes", sa.JSON(), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_wm_entities"),
    )
    op.create_table(
        "wm_edge_claims",
        sa.Column("source", sa.String(200), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("layer", sa.String(32), nullable=False),
        sa.Column("relation", sa.String(32), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("observed_at", TS, nullable=False),
        sa.Column("valid_until", TS, nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("source", "target", "layer", name="pk_wm_edge_claims"),
    )
    op.create_index("ix_wm_edge_claims_target", "wm_edge_claims", ["target"])
    op.create_table(
        "wm_predictions",
        sa.Column("proposal_hash", sa.String(64), nullable=False),
        sa.Column("action_json", sa.Text(), nullable=False),
        sa.Column("prediction", sa.JSON(), nullable=False),
        sa.Column("committed_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("proposal_hash", name="pk_wm_predictions"),
    )
    op.create_table(
        "wm_proposals",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("investigation_id", sa.String(64), nullable=False),
        sa.Column("proposal_hash", sa.String(64), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("action_class", sa.String(120), nullable=False),
        sa.Column("status", sa.String(24), nullable=False),
        sa.Column("reason", sa.String(64), nullable=True),
        sa.Column("verdict", sa.String(16), nullable=True),
        sa.Column("verdict_detail", sa.JSON(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("evaluated_at", TS, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_wm_proposals"),
    )
    op.create_index("ix_wm_proposals_investigation_id", "wm_proposals", ["investigation_id"])
    op.create_index("ix_wm_proposals_proposal_hash", "wm_proposals", ["proposal_hash"])
    op.create_index("ix_wm_proposals_action_class", "wm_proposals", ["action_class"])
    op.create_table(
        "wm_edge_dynamics",
        sa.Column("source", sa.String(200), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("stats", sa.JSON(), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("source", "target", name="pk_wm_edge_dynamics"),
    )


def downgrade() -> None:
    op.drop_table("wm_edge_dynamics")
    op.drop_index("ix_wm_proposals_action_class", table_name="wm_proposals")
    op.drop_index("ix_wm_proposals_proposal_hash", table_name="wm_proposals")
    op.drop_index("ix_wm_proposals_investigation_id", table_name="wm_proposals")
    op.drop_table("wm_proposals")
    op.drop_table("wm_predictions")
    op.drop_index("ix_wm_edge_claims_target", table_name="wm_edge_claims")
    op.drop_table("wm_edge_claims")
    op.drop_table("wm_entities")
