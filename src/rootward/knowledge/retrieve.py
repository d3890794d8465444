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
CANDIDATES = 100  # per retriever, before fusion
PER_DOCUMENT = 2  # chunks of one document in one result list
SIMILAR = 0.85  # cosine above which a hit counts as a near-duplicate of a chosen one
DIVERSITY = 0.3  # an exact duplicate of a chosen hit keeps 70% of its score
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
        by_service: dict[str, list[int]] = {}
        for i, c in enumerate(self.chunks):
            for service in c.services:
                by_service.setdefault(service, []).append(i)
        self._by_service = {s: np.array(ix, dtype=np.int64) for s, ix in by_service.items()}
        self._known_services = frozenset(self._by_service)

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
        # einsum, not BLAS: a 1,600×384 product is ~1 ms single-threaded, while BLAS threads spin
        # for tens of ms on a busy two-core machine
        return np.einsum("ij,j->i", self._vectors, query_vec.astype(np.float32, copy=False))

    def search(
        self, query: str, *, services: Sequence[str] = (), k: int = 8, now: date | None = None
    ) -> list[KnowledgeHit]:
        """The k best chunks for `query`, at most two per document, best first."""
        now = now or date.today()
        parsed = parse_query(query)
        tokens = tokenize(parsed.text)
        wanted = list(services) + [s for s in self._known_services if s in tokens and s not in services]
        lexical = self._lexical.scores(tokens)
        dense = self._dense_scores(parsed.text)
        scores = [lexical] if dense is None else [lexical, dense]
        rankings = [top_indices(x, CANDIDATES) for x in scores]
        if wanted:
            # the same retrievers restricted to the services in question: among twenty near-identical
            # "disk full" runbooks, the one for the alerting service must reach the fusion at all
            mask = self._service_mask(wanted)
            rankings += [top_indices(np.where(mask, x, 0.0), CANDIDATES) for x in scores]
        fused = reciprocal_rank_fusion(rankings)
        if not fused:
            return []

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
        return [self._hit(self.chunks[i], score, now) for score, i in self._diversify(scored, k)]

    def _diversify(self, scored: list[tuple[float, int]], k: int) -> list[tuple[float, int]]:
        """Greedy selection that discounts near-duplicates of what is already chosen (MMR-style),
        at most PER_DOCUMENT chunks of a document: five copies of one postmortem template must
        not push the runbook out of the top five."""
        pool = scored[: max(k * 8, 40)]
        vectors = None if self._vectors is None else self._vectors[[i for _, i in pool]]
        max_sim = np.zeros(len(pool), dtype=np.float32)
        taken = np.zeros(len(pool), dtype=bool)
        per_doc: dict[str, int] = {}
        chosen: list[tuple[float, int]] = []
        base = np.array([s for s, _ in pool], dtype=np.float64)
        while len(chosen) < k and not taken.all():
            adjusted = base * (1.0 - DIVERSITY * np.clip((max_sim - SIMILAR) / (1.0 - SIMILAR), 0.0, 1.0))
            adjusted[taken] = -np.inf
            j = int(np.argmax(adjusted))
            taken[j] = True
            i = pool[j][1]
            path = self.chunks[i].path
            if per_doc.get(path, 0) >= PER_DOCUMENT:
                continue
            per_doc[path] = per_doc.get(path, 0) + 1
            chosen.append((float(adjusted[j]), i))
            if vectors is not None:
                np.maximum(max_sim, vectors @ vectors[j], out=max_sim)
        return chosen

    def _service_mask(self, services: Sequence[str]) -> np.ndarray:
        mask = np.zeros(len(self.chunks), dtype=bool)
        for service in services:
            if service in self._by_service:
                mask[self._by_service[service]] = True
        return mask

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
