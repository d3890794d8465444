"""Incremental ingest of Markdown knowledge into the database, and loading the index from it.

A content hash per document decides the work: unchanged → nothing (no
embedding call); changed → re-chunked and re-embedded; gone from the source →
deleted. Documents are parsed by the bundle loader's `parse_document`, so a
directory and a bundle's `knowledge/` mean the same thing.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sqlalchemy.orm import Session, sessionmaker

from rootward.bundle.format import BundleError
from rootward.bundle.validate import parse_document
from rootward.domain.knowledge import Document
from rootward.knowledge.embeddings import Embedder, EmbeddingUnavailable
from rootward.knowledge.index import IndexedChunk, chunk_document
from rootward.knowledge.retrieve import KnowledgeIndex
from rootward.store.knowledge import (
    KnowledgeChunkRow,
    KnowledgeDocumentRow,
    all_chunks,
    delete_documents,
    document_hashes,
    documents_of,
    vector_from_bytes,
    vector_to_bytes,
)

log = logging.getLogger(__name__)

MAX_EMBED_AT_LOAD = 256  # chunks without a stored vector that loading may embed itself
CHUNKER_VERSION = "chunk-v1"  # part of the hash: a new chunker re-chunks everything once


@dataclass
class IngestReport:
    source: str
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    embedded_chunks: int = 0
    degraded: str | None = None
    errors: list[str] = field(default_factory=list)  # files that did not parse (left unchanged)
    seconds: float = 0.0

    def summary(self) -> str:
        text = (
            f"{self.source}: {len(self.added)} added, {len(self.changed)} changed, "
            f"{len(self.unchanged)} unchanged, {len(self.removed)} removed; "
            f"{self.embedded_chunks} chunks embedded in {self.seconds:.2f}s"
        )
        text += f" (degraded: {self.degraded})" if self.degraded else ""
        return text + "".join(f"\n  skipped {e}" for e in self.errors)


def content_hash(raw: str) -> str:
    return hashlib.sha256(f"{CHUNKER_VERSION}\n{raw}".encode()).hexdigest()


def read_directory(root: Path) -> dict[str, str]:
    """relative path → file text for every Markdown file under `root`."""
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*.md"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    }


def scan_directory(root: Path) -> list[Document]:
    return [parse_document(rel, raw) for rel, raw in read_directory(root).items()]


def _embed(chunks: list[IndexedChunk], embedder: Embedder | None) -> tuple[np.ndarray | None, str | None]:
    """All chunks of one ingest in one call, so the embedder batches across documents."""
    if embedder is None:
        return None, "no embedder"
    if not chunks:
        return None, None
    try:
        return embedder.embed([c.search_text() for c in chunks]), None
    except EmbeddingUnavailable as exc:
        return None, str(exc)


def ingest_files(
    sessions: sessionmaker[Session],
    source: str,
    files: Mapping[str, str],
    embedder: Embedder | None,
    *,
    remove_missing: bool = True,
) -> IngestReport:
    """Bring `source`'s documents in the database to `files` (path → raw Markdown).

    Hashes are read in one short transaction, the embedding runs outside any
    transaction (it can take minutes), and the writes go in one more. A file
    that does not parse is reported and left as it was; the others go on.
    """
    started = time.perf_counter()
    report = IngestReport(source=source)
    model_id = embedder.model_id if embedder else None
    with sessions() as session:
        known = document_hashes(session, source)
    todo: list[tuple[str, str, str, Document, list[IndexedChunk]]] = []
    for path, raw in sorted(files.items()):
        digest = content_hash(raw)
        previous = known.get(path)
        if previous is not None and previous[0] == digest and (previous[1] == model_id or model_id is None):
            report.unchanged.append(path)
            continue
        try:
            doc = parse_document(path, raw)
        except BundleError as exc:
            report.errors.append(str(exc))
            continue
        todo.append((path, raw, digest, doc, chunk_document(doc)))
        (report.changed if previous is not None else report.added).append(path)
    all_new = [c for *_, chunks in todo for c in chunks]
    vectors, report.degraded = _embed(all_new, embedder)
    if vectors is not None:
        report.embedded_chunks = len(all_new)
    with sessions.begin() as session:
        rows = documents_of(session, source, [path for path, *_ in todo if path in known])
        offset = 0
        for path, raw, digest, doc, chunks in todo:
            row = rows.get(path)
            if row is None:
                row = KnowledgeDocumentRow(source=source, path=path)
                session.add(row)
            else:
                row.chunks.clear()
                session.flush()  # old chunk rows go before new ones reuse their numbers
            row.kind, row.title = doc.kind, doc.title
            row.services, row.monitors, row.updated = list(doc.services), list(doc.monitors), doc.updated
            row.content_hash, row.raw = digest, raw
            for c in chunks:
                row.chunks.append(
                    KnowledgeChunkRow(
                        chunk_no=c.chunk,
                        text=c.text,
                        tokens=c.tokens,
                        model_id=model_id if vectors is not None else None,
                        vector=vector_to_bytes(vectors[offset]) if vectors is not None else None,
                    )
                )
                offset += 1
        if remove_missing:
            report.removed = sorted(set(known) - set(files))
            delete_documents(session, source, report.removed)
    report.seconds = time.perf_counter() - started
    return report


def ingest_directory(sessions: sessionmaker[Session], root: Path, embedder: Embedder | None) -> IngestReport:
    return ingest_files(sessions, str(root.resolve()), read_directory(root), embedder)


def load_index(sessions: sessionmaker[Session], embedder: Embedder | None) -> KnowledgeIndex:
    """The in-memory index from stored chunks; vectors of another model (or none) make it BM25 only."""
    with sessions() as session:
        rows = all_chunks(session)
        chunks = [
            IndexedChunk(
                path=d.path,
                chunk=c.chunk_no,
                text=c.text,
                kind=d.kind,
                services=tuple(d.services or ()),
                monitors=tuple(d.monitors or ()),
                updated=d.updated,
                title=d.title,
                tokens=c.tokens,
            )
            for d, c in rows
        ]
        model_id = embedder.model_id if embedder else None
        stored = [
            vector_from_bytes(c.vector) if c.vector is not None and c.model_id == model_id else None for _, c in rows
        ]
    return KnowledgeIndex.from_chunks(chunks, *_complete_vectors(chunks, stored, embedder))


def _complete_vectors(
    chunks: list[IndexedChunk], stored: list[np.ndarray | None], embedder: Embedder | None
) -> tuple[np.ndarray | None, Embedder | None]:
    """Stored vectors, with the few that are missing (a draft accepted without a model, say)
    embedded now; many missing means another model: BM25 until the knowledge is re-ingested."""
    if embedder is None or not chunks:
        return None, None
    missing = [i for i, v in enumerate(stored) if v is None]
    if len(missing) > MAX_EMBED_AT_LOAD:
        log.warning(
            "knowledge: %d chunks have no vector of %s; BM25 only until `rootward kb ingest` re-embeds them",
            len(missing),
            embedder.model_id,
        )
        return None, None
    if missing:
        try:
            fresh = embedder.embed([chunks[i].search_text() for i in missing])
        except EmbeddingUnavailable as exc:
            log.warning("knowledge: %s; BM25 only", exc)
            return None, None
        for row, i in enumerate(missing):
            stored[i] = fresh[row]
    return np.stack([v for v in stored if v is not None]), embedder


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {p.as_posix(): (p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*.md") if p.is_file()}


def watch_directory(
    sessions: sessionmaker[Session],
    root: Path,
    embedder: Embedder | None,
    on_report: Callable[[IngestReport], None],
    *,
    interval_s: float = 1.0,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """Poll `root` and ingest whenever a file's mtime or size changes (a changed runbook is searchable in ~1 s)."""
    last: dict[str, tuple[int, int]] | None = None
    while not stop():
        current = _snapshot(root)
        if current != last:
            on_report(ingest_directory(sessions, root, embedder))
            last = current
        time.sleep(interval_s)
