"""Where an incident came from and where it is in its life cycle.

`investigations.source` keeps simulated and imported incidents apart from live
ones (`live`, `simulated`, `replay`, `imported`; earlier rows are classified from
their job id and bundle path); `state` (open, acknowledged,
resolved), `assignee` and the resolution columns carry the life cycle, and
`incident_events` is its timeline (acknowledged, assigned, resolved, ...).

Revision ID: 0013_incident_lifecycle
Revises: 0011_console_quality
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_incident_lifecycle"
down_revision = "0011_console_quality"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("investigations") as table:
        table.add_column(sa.Column("source", sa.String(16), nullable=False, server_default="live"))
        table.add_column(sa.Column("state", sa.String(16), nullable=False, server_default="open"))
        table.add_column(sa.Column("assignee", sa.String(120), nullable=True))
        table.add_column(sa.Column("resolved_at", TS, nullable=True))
        table.add_column(sa.Column("resolved_entity", sa.String(200), nullable=True))
        table.add_column(sa.Column("resolved_fault", sa.String(64), nullable=True))
    # Rows from before: `rootward import` wrote no job id; `serve --demo` replayed bundles of its demo-bundles dir.
    op.execute("UPDATE investigations SET source = 'imported' WHERE job_id IS NULL")
    op.execute("UPDATE investigations SET source = 'simulated' WHERE bundle_path LIKE '%/demo-bundles/%'")
    op.create_index("ix_investigations_source_created", "investigations", ["source", "created_at"])
    op.create_index("ix_investigations_state_created", "investigations", ["state", "created_at"])
    op.create_table(
        "incident_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("investigation_id", sa.String(64), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("by", sa.String(120), nullable=False, server_default=""),
        sa.Column("detail", sa.Text, nullable=False, server_default=""),
    )
    op.create_index("ix_incident_events_investigation", "incident_events", ["investigation_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_incident_events_investigation", table_name="incident_events")
    op.drop_table("incident_events")
    op.drop_index("ix_investigations_state_created", table_name="investigations")
    op.drop_index("ix_investigations_source_created", table_name="investigations")
    with op.batch_alter_table("investigations") as table:
        for column in ("resolved_fault", "resolved_entity", "resolved_at", "assignee", "state", "source"):
            table.drop_column(column)
