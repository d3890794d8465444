"""Put the relevant part of the knowledge base into a live snapshot.

The knowledge base can hold thousands of runbooks and postmortems; an
investigation needs the team notes of its services and the few documents
that hybrid search ranks first. Those documents, as stored (front matter
included), go into the snapshot's `knowledge/`, so the engine's citations
(`knowledge/<path>#<chunk>`) resolve against what it saw.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from rootward.knowledge.retrieve import KnowledgeIndex
from rootward.store.knowledge import KnowledgeDocumentRow


class KnowledgeSnapshotter:
    """Keeps one in-memory index per process, rebuilt when the stored corpus changes."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions
        self._lock = threading.Lock()
        self._index: KnowledgeIndex | None = None
        self._version: tuple[int, object] | None = None

    def index(self) -> KnowledgeIndex | None:
        """The current in-memory index, or None while the knowledge base is empty."""
        return self._current()

    def _current(self) -> KnowledgeIndex | None:
        with self._sessions() as session:
            version = session.execute(
                select(func.count(KnowledgeDocumentRow.id), func.max(KnowledgeDocumentRow.ingested_at))
            ).one()
        count = int(version[0] or 0)
        if count == 0:
            return None
        with self._lock:
            if self._index is None or self._version != (count, version[1]):
                from rootward.knowledge.embeddings import EmbeddingUnavailable, LocalEmbedder
                from rootward.knowledge.ingest import load_index

                try:
                    embedder: LocalEmbedder | None = LocalEmbedder()
                    self._index = load_index(self._sessions, embedder)
                except EmbeddingUnavailable:
                    self._index = load_index(self._sessions, None)  # BM25 only: degrade, never block
                self._version = (count, version[1])
            return self._index

    def write(self, out: Path, query: str, services: Sequence[str]) -> int:
        """Write the retrieved documents under `out/knowledge/`; returns how many (0: none stored)."""
        index = self._current()
        if index is None:
            return 0
        paths = sorted({hit.path for hit in index.for_investigation(query, list(services))})
        if not paths:
            return 0
        with self._sessions() as session:
            rows = session.scalars(select(KnowledgeDocumentRow).where(KnowledgeDocumentRow.path.in_(paths))).all()
        for row in rows:
            target = (out / "knowledge" / row.path).resolve()
            if not target.is_relative_to((out / "knowledge").resolve()):
                continue  # a stored path must never write outside the snapshot
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(row.raw, encoding="utf-8")
        return len(rows)
