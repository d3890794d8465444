"""Knowledge: documents with content hashes, chunks with vectors, runbook drafts.

Revision ID: 0004_knowledge
Revises: 0001_foundation
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_knowledge"
down_revision = "0001_foundation"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "kb_documents",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("source", sa.String(500), nullable=False),
        sa.Column("path", sa.String(500), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("services", sa.JSON(), nullable=False),
        sa.Column("monitors", sa.JSON(), nullable=False),
        sa.Column("updated", sa.Date(), nullable=True),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("raw", sa.Text(), nullable=False),
        sa.Column("ingested_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_kb_documents"),
        sa.UniqueConstraint("source", "path", name="uq_kb_documents_source_path"),
    )
    op.create_table(
        "kb_chunks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("chunk_no", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("model_id", sa.String(200), nullable=True),
        sa.Column("vector", sa.LargeBinary(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_kb_chunks"),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["kb_documents.id"],
            name="fk_kb_chunks_document_id_kb_documents",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("document_id", "chunk_no", name="uq_kb_chunks_document_chunk"),
    )
    op.create_index("ix_kb_chunks_document_id", "kb_chunks", ["document_id"])
    op.create_table(
        "kb_drafts",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("investigation_id", sa.String(64), nullable=False),
        sa.Column("service", sa.String(200), nullable=False),
        sa.Column("fault_type", sa.String(64), nullable=False),
        sa.Column("target_path", sa.String(500), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("finding", sa.JSON(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("decided_at", TS, nullable=True),
        sa.Column("decided_by", sa.String(200), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_kb_drafts"),
    )
    op.create_index("ix_kb_drafts_status", "kb_drafts", ["status"])


def downgrade() -> None:
    op.drop_index("ix_kb_drafts_status", table_name="kb_drafts")
    op.drop_table("kb_drafts")
    op.drop_index("ix_kb_chunks_document_id", table_name="kb_chunks")
    op.drop_table("kb_chunks")
    op.drop_table("kb_documents")
