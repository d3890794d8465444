"""The knowledge an investigation sees: hybrid retrieval over the incident's documents.

Context assembly sits below the knowledge base in the layering, so the engine
hands it this retriever. BM25 only: loading the embedding model costs seconds
per process, too much before a first hypothesis.
"""

from __future__ import annotations

from collections.abc import Sequence

from rootward.context.assemble import MAX_KNOWLEDGE, KnowledgeItem
from rootward.domain.knowledge import Document
from rootward.knowledge.retrieve import KnowledgeIndex


def retrieve_knowledge(docs: Sequence[Document], services: set[str], alert_names: set[str]) -> list[KnowledgeItem]:
    """Team notes for the services in scope first, then runbooks and postmortems retrieved for the alerts."""
    index = KnowledgeIndex.from_documents(list(docs), dense=False)
    query = " ".join(sorted(alert_names)) + " " + " ".join(sorted(services))
    return [
        KnowledgeItem(
            path=hit.path,
            kind=hit.kind,
            title=hit.title or hit.path,
            services=list(hit.services),
            text=hit.text[:2000],
            evidence=hit.evidence,
        )
        for hit in index.for_investigation(query, sorted(services), max_chunks=MAX_KNOWLEDGE)
    ]
