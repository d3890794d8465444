"""Score knowledge retrieval against an evaluation file: hit@5 and near-miss avoidance in the top 3.

hit@5: every must-retrieve document is among the first five distinct
documents. Near-miss avoidance: no near-miss sits in the top three above the
best-ranked must-retrieve document (a near miss ranked below it is fine: the
right answer came first).
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from rootward.domain.knowledge import Document
from rootward.knowledge.embeddings import Embedder
from rootward.knowledge.ingest import scan_directory
from rootward.knowledge.retrieve import KnowledgeIndex


@dataclass(frozen=True)
class QueryOutcome:
    id: str
    category: str
    query: str
    ranked: tuple[str, ...]  # distinct document paths, best first
    hit_at_5: bool
    near_miss_avoided: bool


@dataclass
class EvalReport:
    name: str
    documents: int
    chunks: int
    degraded: str | None
    outcomes: list[QueryOutcome] = field(default_factory=list)
    build_s: float = 0.0
    query_ms_p50: float = 0.0

    @property
    def hit_at_5(self) -> float:
        return sum(o.hit_at_5 for o in self.outcomes) / max(len(self.outcomes), 1)

    @property
    def near_miss_avoidance(self) -> float:
        return sum(o.near_miss_avoided for o in self.outcomes) / max(len(self.outcomes), 1)

    def by_category(self) -> dict[str, dict[str, float]]:
        cats: dict[str, list[QueryOutcome]] = {}
        for o in self.outcomes:
            cats.setdefault(o.category, []).append(o)
        return {
            c: {
                "queries": len(os),
                "hit_at_5": round(sum(o.hit_at_5 for o in os) / len(os), 3),
                "near_miss_avoidance_top3": round(sum(o.near_miss_avoided for o in os) / len(os), 3),
            }
            for c, os in sorted(cats.items())
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "documents": self.documents,
            "chunks": self.chunks,
            "degraded": self.degraded,
            "queries": len(self.outcomes),
            "hit_at_5": round(self.hit_at_5, 3),
            "near_miss_avoidance_top3": round(self.near_miss_avoidance, 3),
            "by_category": self.by_category(),
            "build_s": round(self.build_s, 2),
            "query_ms_p50": round(self.query_ms_p50, 2),
            "failures": [
                {"id": o.id, "query": o.query, "top5": list(o.ranked[:5])}
                for o in self.outcomes
                if not (o.hit_at_5 and o.near_miss_avoided)
            ],
        }


def score_query(ranked: Sequence[str], must: Sequence[str], near_miss: Sequence[str]) -> tuple[bool, bool]:
    top5 = list(ranked[:5])
    hit = all(m in top5 for m in must)
    must_ranks = [ranked.index(m) for m in must if m in ranked]
    best_must = min(must_ranks) if must_ranks else len(ranked) + 1
    avoided = not any(n in ranked[:3] and ranked.index(n) < best_must for n in near_miss)
    return hit, avoided


def corpus_documents(spec: dict[str, Any], base: Path) -> list[Document]:
    """The corpus an eval file names: a generator module with a seed, or a directory."""
    if "dir" in spec:
        root = Path(spec["dir"])
        return scan_directory(root if root.is_absolute() else base / root)
    module = importlib.import_module(spec.get("generator", "rootward.eval.kb_corpus"))
    docs: list[Document] = module.generate_documents(
        seed=int(spec.get("seed", 7)), postmortems=int(spec.get("postmortems", 1260))
    )
    return docs


def run_eval(
    path: Path, embedder: Embedder | None = None, *, dense: bool = True, index: KnowledgeIndex | None = None
) -> EvalReport:
    data = json.loads(path.read_text(encoding="utf-8"))
    now = date.fromisoformat(data["now"]) if data.get("now") else date.today()
    started = time.perf_counter()
    docs: list[Document] = []
    if index is None:
        docs = corpus_documents(data.get("corpus", {}), path.parent)
        index = KnowledgeIndex.from_documents(docs, embedder, dense=dense)
    report = EvalReport(
        name=data.get("name", path.stem),
        documents=len({c.path for c in index.chunks}),
        chunks=len(index),
        degraded=index.degraded,
        build_s=time.perf_counter() - started,
    )
    latencies = []
    for q in data["queries"]:
        t0 = time.perf_counter()
        hits = index.search(q["query"], services=q.get("services", []), k=20, now=now)
        latencies.append((time.perf_counter() - t0) * 1000)
        ranked = tuple(dict.fromkeys(h.path for h in hits))
        hit, avoided = score_query(ranked, q["must"], q.get("near_miss", []))
        report.outcomes.append(QueryOutcome(q["id"], q["category"], q["query"], ranked, hit, avoided))
    latencies.sort()
    report.query_ms_p50 = latencies[len(latencies) // 2] if latencies else 0.0
    return report
