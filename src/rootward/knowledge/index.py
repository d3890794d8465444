"""The in-memory hybrid index: BM25 over chunk tokens plus a dense matrix of chunk vectors.

Memory: a chunk costs its text plus 384 float32 (1.5 KiB) of vector; 15,000
chunks (10× the evaluation corpus) are ~25 MiB of vectors, and a query is one
matrix-vector product, so a flat matrix beats an ANN structure at this size.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import bm25s
import numpy as np

from rootward.domain.knowledge import Document
from rootward.knowledge.chunking import DEFAULT_MAX_TOKENS, chunk_text
from rootward.knowledge.lexical import tokenize

# bm25s sets its own logger to DEBUG on import; index builds are not news.
logging.getLogger("bm25s").setLevel(logging.WARNING)


@dataclass(frozen=True)
class IndexedChunk:
    path: str
    chunk: int  # 0-based within its document
    text: str
    kind: str
    services: tuple[str, ...]
    monitors: tuple[str, ...]
    updated: date | None
    title: str
    tokens: int

    def search_text(self) -> str:
        """What BM25 and the embedder see: the chunk with its document's title and tags."""
        tags = " ".join((*self.services, *self.monitors))
        return f"{self.title}\n{tags}\n{self.text}" if tags else f"{self.title}\n{self.text}"


def chunk_document(doc: Document, max_tokens: int = DEFAULT_MAX_TOKENS) -> list[IndexedChunk]:
    return [
        IndexedChunk(
            path=doc.path,
            chunk=c.index,
            text=c.text,
            kind=doc.kind,
            services=tuple(doc.services),
            monitors=tuple(doc.monitors),
            updated=doc.updated,
            title=doc.title,
            tokens=c.tokens,
        )
        for c in chunk_text(doc.text, max_tokens)
    ]


class LexicalIndex:
    """BM25 (bm25s, Lucene scoring) over our own compound-aware tokens."""

    def __init__(self, chunks: Sequence[IndexedChunk]) -> None:
        self._retriever = bm25s.BM25()
        self._size = len(chunks)
        self._token_sets = [frozenset(tokenize(c.search_text())) for c in chunks]
        if chunks:
            self._retriever.index([tokenize(c.search_text()) or [""] for c in chunks], show_progress=False)

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        if not self._size or not tokens:
            return np.zeros(self._size, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(list(tokens)), dtype=np.float32)

    def contains_all(self, i: int, tokens: Sequence[str]) -> bool:
        return bool(tokens) and all(t in self._token_sets[i] for t in tokens)


def top_indices(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the k best positive scores, best first."""
    if scores.size == 0:
        return []
    k = min(k, scores.size)
    part = np.argpartition(-scores, k - 1)[:k]
    ordered = part[np.argsort(-scores[part], kind="stable")]
    return [int(i) for i in ordered if scores[i] > 0]
