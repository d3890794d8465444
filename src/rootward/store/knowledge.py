"""Tables of the knowledge base: documents (with a content hash), their chunks and vectors, and runbook drafts.

Vectors are float32 little-endian bytes in the chunk row, tagged with the
embedding model id: the in-memory index is built from these rows at start,
and a document whose hash is unchanged is never embedded again.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import numpy as np
from sqlalchemy import (
    JSON,
    Date,
    DateTime,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    delete,
    func,
    select,
)
from sqlalchemy.orm import Mapped, Session, mapped_column, relationship

from rootward.store.base import Base


def _now() -> datetime:
    return datetime.now(UTC)


class KnowledgeDocumentRow(Base):
    __tablename__ = "kb_documents"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    source: Mapped[str] = mapped_column(String(500))  # the ingested directory, "drafts", or a label
    path: Mapped[str] = mapped_column(String(500))  # relative to the source: the cite's <path>
    kind: Mapped[str] = mapped_column(String(16))
    title: Mapped[str] = mapped_column(Text, default="")
    services: Mapped[list[str]] = mapped_column(JSON, default=list)
    monitors: Mapped[list[str]] = mapped_column(JSON, default=list)
    updated: Mapped[date | None] = mapped_column(Date, nullable=True)
    content_hash: Mapped[str] = mapped_column(String(64))
    raw: Mapped[str] = mapped_column(Text)  # the file as read, front matter included
    ingested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    chunks: Mapped[list[KnowledgeChunkRow]] = relationship(
        back_populates="document",
        cascade="all, delete-orphan",
        order_by="KnowledgeChunkRow.chunk_no",
        passive_deletes=True,
    )

    __table_args__ = (UniqueConstraint("source", "path", name="uq_kb_documents_source_path"),)


class KnowledgeChunkRow(Base):
    __tablename__ = "kb_chunks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("kb_documents.id", ondelete="CASCADE"), index=True)
    chunk_no: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    tokens: Mapped[int] = mapped_column(Integer)
    model_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    vector: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)

    document: Mapped[KnowledgeDocumentRow] = relationship(back_populates="chunks")

    __table_args__ = (UniqueConstraint("document_id", "chunk_no", name="uq_kb_chunks_document_chunk"),)


class RunbookDraftRow(Base):
    __tablename__ = "kb_drafts"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), default="proposed", index=True)  # proposed|accepted|rejected
    investigation_id: Mapped[str] = mapped_column(String(64), default="")
    service: Mapped[str] = mapped_column(String(200))
    fault_type: Mapped[str] = mapped_column(String(64))
    target_path: Mapped[str] = mapped_column(String(500))  # runbook the addition goes into
    body: Mapped[str] = mapped_column(Text)  # the proposed Markdown section
    finding: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # the typed input it came from
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    decided_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    note: Mapped[str] = mapped_column(Text, default="")


# --- vectors -----------------------------------------------------------------


def vector_to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def vector_from_bytes(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype="<f4")


# --- repository --------------------------------------------------------------


def document_hashes(session: Session, source: str) -> dict[str, tuple[str, str | None]]:
    """path → (content hash, model id of its first chunk's vector) for one source."""
    rows = session.execute(
        select(KnowledgeDocumentRow.path, KnowledgeDocumentRow.content_hash, KnowledgeChunkRow.model_id)
        .outerjoin(
            KnowledgeChunkRow,
            (KnowledgeChunkRow.document_id == KnowledgeDocumentRow.id) & (KnowledgeChunkRow.chunk_no == 0),
        )
        .where(KnowledgeDocumentRow.source == source)
    ).all()
    return {path: (h, model) for path, h, model in rows}


def documents_of(session: Session, source: str, paths: list[str]) -> dict[str, KnowledgeDocumentRow]:
    """The rows of `paths` in `source`, in one query per 500 paths."""
    out: dict[str, KnowledgeDocumentRow] = {}
    for start in range(0, len(paths), 500):
        batch = paths[start : start + 500]
        for row in session.scalars(
            select(KnowledgeDocumentRow).where(
                KnowledgeDocumentRow.source == source, KnowledgeDocumentRow.path.in_(batch)
            )
        ):
            out[row.path] = row
    return out


def find_documents_by_path(session: Session, path: str) -> list[KnowledgeDocumentRow]:
    return list(session.scalars(select(KnowledgeDocumentRow).where(KnowledgeDocumentRow.path == path)))


def delete_documents(session: Session, source: str, paths: list[str]) -> None:
    if not paths:
        return
    ids = list(
        session.scalars(
            select(KnowledgeDocumentRow.id).where(
                KnowledgeDocumentRow.source == source, KnowledgeDocumentRow.path.in_(paths)
            )
        )
    )
    session.execute(delete(KnowledgeChunkRow).where(KnowledgeChunkRow.document_id.in_(ids)))
    session.execute(delete(KnowledgeDocumentRow).where(KnowledgeDocumentRow.id.in_(ids)))


def all_documents(session: Session) -> list[KnowledgeDocumentRow]:
    return list(session.scalars(select(KnowledgeDocumentRow).order_by(KnowledgeDocumentRow.path)))


def all_chunks(session: Session) -> list[tuple[KnowledgeDocumentRow, KnowledgeChunkRow]]:
    rows = session.execute(
        select(KnowledgeDocumentRow, KnowledgeChunkRow)
        .join(KnowledgeChunkRow, KnowledgeChunkRow.document_id == KnowledgeDocumentRow.id)
        .order_by(KnowledgeDocumentRow.path, KnowledgeDocumentRow.source, KnowledgeChunkRow.chunk_no)
    ).all()
    return [(d, c) for d, c in rows]


def chunk_counts(session: Session) -> dict[int, int]:
    """document id → number of chunks, in one query."""
    rows = session.execute(
        select(KnowledgeChunkRow.document_id, func.count()).group_by(KnowledgeChunkRow.document_id)
    ).all()
    return {doc_id: int(n) for doc_id, n in rows}
