"""Hybrid retrieval over runbooks, postmortems and team notes, as cited evidence.

BM25 finds exact terms (service names, error codes, monitor names), dense
similarity finds meaning ("ran out of connections" ~ "pool exhausted"); their
rankings are fused by reciprocal rank fusion and reranked by service match,
recency and staleness. If the embedding model cannot load, the index works on
BM25 alone and says so in `degraded` (degrade, never block).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from rootward.domain.evidence import EvidenceRef, knowledge_cite
from rootward.domain.knowledge import Document
from rootward.knowledge.embeddings import Embedder, EmbeddingUnavailable, LocalEmbedder
from rootward.knowledge.index import IndexedChunk, LexicalIndex, chunk_document, top_indices
from rootward.knowledge.lexical import tokenize
from rootward.knowledge.query import parse_query
from rootward.knowledge.ranking import (
    EXACT_MATCH_FACTOR,
    NEGATED_FACTOR,
    is_stale,
    kind_factor,
    recency_factor,
    reciprocal_rank_fusion,
    service_factor,
    stale_factor_for,
    stale_warning,
)

log = logging.getLogger(__name__)

DEFAULT_MAX_CHUNKS = 8
DEFAULT_MAX_TOKENS = 4096
CANDIDATES = 50  # per retriever, before fusion
PER_DOCUMENT = 2  # chunks of one document in one result list
EXCERPT_CHARS = 300


@dataclass(frozen=True)
class KnowledgeHit:
    evidence: EvidenceRef  # kind="knowledge", cite="knowledge/<path>#<chunk>"
    path: str
    chunk: int
    text: str
    score: float
    kind: str  # runbook | postmortem | bits | other
    services: tuple[str, ...]
    stale: bool
    warning: str | None
    title: str = ""
    tokens: int = 0


class KnowledgeIndex:
    """Chunks, their BM25 index and (unless degraded) their vectors; immutable once built."""

    def __init__(
        self,
        chunks: Sequence[IndexedChunk],
        vectors: np.ndarray | None,
        embedder: Embedder | None,
        degraded: str | None = None,
    ) -> None:
        self.chunks: tuple[IndexedChunk, ...] = tuple(chunks)
        self._lexical = LexicalIndex(self.chunks)
        self._vectors = vectors if embedder is not None else None
        self._embedder = embedder if vectors is not None else None
        self.degraded = degraded if degraded or self._embedder is not None else "no embedder: BM25 only"
        self._known_services = frozenset(s for c in self.chunks for s in c.services)

    # -- building ------------------------------------------------------------

    @classmethod
    def from_documents(
        cls, docs: Sequence[Document], embedder: Embedder | None = None, *, dense: bool = True
    ) -> KnowledgeIndex:
        """Chunk and embed `docs` (default embedder: the local MiniLM); BM25 only if it cannot load."""
        chunks = [c for doc in docs for c in chunk_document(doc)]
        if not dense:
            return cls(chunks, None, None, "dense retrieval switched off: BM25 only")
        embedder = embedder or LocalEmbedder()
        try:
            vectors = embedder.embed([c.search_text() for c in chunks])
        except EmbeddingUnavailable as exc:
            log.warning("knowledge: %s; falling back to BM25 only", exc)
            return cls(chunks, None, None, f"embeddings unavailable ({exc}): BM25 only")
        return cls(chunks, vectors, embedder)

    @classmethod
    def from_chunks(
        cls, chunks: Sequence[IndexedChunk], vectors: np.ndarray | None, embedder: Embedder | None
    ) -> KnowledgeIndex:
        """From stored chunks and vectors (rows aligned with `chunks`); no embedding calls."""
        if vectors is None or embedder is None:
            return cls(chunks, None, None, "no stored vectors for this embedder: BM25 only")
        return cls(chunks, vectors, embedder)

    def __len__(self) -> int:
        return len(self.chunks)

    # -- searching -----------------------------------------------------------

    def _dense_scores(self, text: str) -> np.ndarray | None:
        if self._embedder is None or self._vectors is None or not len(self.chunks):
            return None
        try:
            query_vec = self._embedder.embed([text])[0]
        except EmbeddingUnavailable as exc:
            log.warning("knowledge: query embedding failed (%s); BM25 only for this query", exc)
            return None
        return np.asarray(self._vectors @ query_vec, dtype=np.float32)

    def search(
        self, query: str, *, services: Sequence[str] = (), k: int = 8, now: date | None = None
    ) -> list[KnowledgeHit]:
        """The k best chunks for `query`, at most two per document, best first."""
        now = now or date.today()
        parsed = parse_query(query)
        tokens = tokenize(parsed.text)
        lexical = self._lexical.scores(tokens)
        rankings = [top_indices(lexical, CANDIDATES)]
        dense = self._dense_scores(parsed.text)
        if dense is not None:
            rankings.append(top_indices(dense, CANDIDATES))
        fused = reciprocal_rank_fusion(rankings)
        if not fused:
            return []

        wanted = list(services) + [s for s in self._known_services if s in tokens and s not in services]
        exact = [tokenize(term) for term in parsed.exact]
        negated = [tokenize(phrase) for phrase in parsed.negated]
        scored: list[tuple[float, int]] = []
        for i, base in fused.items():
            c = self.chunks[i]
            score = base * service_factor(c.services, wanted) * recency_factor(c.kind, c.updated, now)
            score *= stale_factor_for(c.kind, c.updated, now) * kind_factor(c.kind)
            if exact and any(self._lexical.contains_all(i, t) for t in exact if t):
                score *= EXACT_MATCH_FACTOR
            if negated and any(self._lexical.contains_all(i, t) for t in negated if t):
                score *= NEGATED_FACTOR
            scored.append((score, i))
        scored.sort(key=lambda pair: (-pair[0], pair[1]))

        hits: list[KnowledgeHit] = []
        per_doc: dict[str, int] = {}
        for score, i in scored:
            c = self.chunks[i]
            if per_doc.get(c.path, 0) >= PER_DOCUMENT:
                continue
            per_doc[c.path] = per_doc.get(c.path, 0) + 1
            hits.append(self._hit(c, score, now))
            if len(hits) >= k:
                break
        return hits

    def team_notes(self, services: Sequence[str], now: date | None = None) -> list[KnowledgeHit]:
        """Every chunk of `bits/` notes for the given services, in service order."""
        now = now or date.today()
        out: list[KnowledgeHit] = []
        seen: set[tuple[str, int]] = set()
        for service in services:
            for c in self.chunks:
                if c.kind == "bits" and service in c.services and (c.path, c.chunk) not in seen:
                    seen.add((c.path, c.chunk))
                    out.append(self._hit(c, 1.0, now))
        return out

    def for_investigation(
        self,
        query: str,
        services: Sequence[str],
        *,
        max_chunks: int = DEFAULT_MAX_CHUNKS,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        now: date | None = None,
    ) -> list[KnowledgeHit]:
        """Team notes for every given service first, then search results, within the budget.

        A chunk that would overflow the token budget is skipped (a smaller one
        after it may still fit); the chunk cap is never exceeded.
        """
        now = now or date.today()
        chosen: list[KnowledgeHit] = []
        seen: set[tuple[str, int]] = set()
        used = 0
        candidates = self.team_notes(services, now) + self.search(query, services=services, k=max_chunks * 3, now=now)
        for hit in candidates:
            if len(chosen) >= max_chunks:
                break
            if (hit.path, hit.chunk) in seen or used + hit.tokens > max_tokens:
                continue
            seen.add((hit.path, hit.chunk))
            chosen.append(hit)
            used += hit.tokens
        return chosen

    @staticmethod
    def _hit(c: IndexedChunk, score: float, now: date) -> KnowledgeHit:
        stale = is_stale(c.kind, c.updated, now)
        warning = stale_warning(c.updated, now) if stale else None
        excerpt = " ".join(c.text.split())[:EXCERPT_CHARS]
        if warning:
            excerpt = f"[STALE: {warning}] {excerpt}"
        return KnowledgeHit(
            evidence=EvidenceRef(kind="knowledge", cite=knowledge_cite(c.path, c.chunk), excerpt=excerpt),
            path=c.path,
            chunk=c.chunk,
            text=c.text,
            score=round(float(score), 6),
            kind=c.kind,
            services=c.services,
            stale=stale,
            warning=warning,
            title=c.title,
            tokens=c.tokens,
        )
