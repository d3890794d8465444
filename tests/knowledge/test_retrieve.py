from __future__ import annotations

from datetime import date

from rootward.domain.knowledge import Document
from rootward.knowledge.retrieve import KnowledgeIndex
from tests.knowledge.fakes import HashingEmbedder

NOW = date(2026, 10, 1)


def _doc(path: str, text: str, services: tuple[str, ...] = (), updated: date | None = None) -> Document:
    kind = {"runbooks": "runbook", "postmortems": "postmortem", "bits": "bits"}[path.split("/")[0]]
    title = text.splitlines()[0].lstrip("# ")
    return Document(path=path, kind=kind, text=text, services=services, updated=updated, title=title)  # type: ignore[arg-type]


POOL = "# payment pool\n\nThe payment connection pool is exhausted; acquire timeouts PAY-E4417. Raise maximumPoolSize."
CORPUS = [
    _doc("runbooks/payment-pool.md", POOL, ("payment",), date(2026, 9, 20)),
    _doc("runbooks/legacy/payment-pool.md", POOL + " Restart all replicas.", ("payment",), date(2025, 1, 1)),
    _doc(
        "runbooks/payment-locks.md",
        "# payment-db locks\n\nLock waits on payment-db rows; cancel the blocker PDB-E1200.",
        ("payment-db",),
        date(2026, 9, 1),
    ),
    _doc(
        "runbooks/cart-pool.md",
        "# cart pool\n\nThe cart connection pool is exhausted; acquire timeouts CRT-E4471.",
        ("cart",),
        date(2026, 9, 1),
    ),
    _doc(
        "postmortems/2024/INC-1.md",
        "# INC-1 payment outage\n\nThe pool was exhausted after a deploy halved it.",
        ("payment",),
        date(2024, 3, 1),
    ),
    _doc("bits/checkout.md", "# checkout notes\n\nBatchJobSlow is flaky at night.", ("checkout",)),
    _doc("bits/payment.md", "# payment notes\n\nCard gateway sandbox is down on Sundays.", ("payment",)),
]


def _index(**kw: object) -> KnowledgeIndex:
    return KnowledgeIndex.from_documents(CORPUS, HashingEmbedder(), **kw)  # type: ignore[arg-type]


def test_stale_runbook_ranks_below_fresh_copy_and_carries_a_warning() -> None:
    hits = _index().search("payment connection pool exhausted", k=10, now=NOW)
    paths = [h.path for h in hits]
    assert paths.index("runbooks/payment-pool.md") < paths.index("runbooks/legacy/payment-pool.md")
    stale = next(h for h in hits if h.path == "runbooks/legacy/payment-pool.md")
    assert stale.stale and stale.warning and "not updated for" in stale.warning
    assert stale.evidence.excerpt.startswith("[STALE")
    fresh = next(h for h in hits if h.path == "runbooks/payment-pool.md")
    assert not fresh.stale and fresh.warning is None


def test_old_postmortem_is_not_marked_stale() -> None:
    hits = _index().search("payment outage deploy halved pool", k=5, now=NOW)
    pm = next(h for h in hits if h.kind == "postmortem")
    assert not pm.stale and pm.warning is None


def test_exact_error_code_finds_its_runbook_first() -> None:
    hits = _index().search("what does CRT-E4471 mean", k=3, now=NOW)
    assert hits[0].path == "runbooks/cart-pool.md"


def test_negated_cause_is_demoted() -> None:
    paths = [h.path for h in _index().search("payment slow, it is not the connection pool", k=10, now=NOW)]
    assert paths.index("runbooks/payment-locks.md") < paths.index("runbooks/payment-pool.md")


def test_cites_are_knowledge_path_and_zero_based_chunk() -> None:
    hit = _index().search("cart pool", k=1, now=NOW)[0]
    assert hit.evidence.kind == "knowledge"
    assert hit.evidence.cite == f"knowledge/{hit.path}#0"


def test_team_notes_for_every_service_come_first_even_when_irrelevant() -> None:
    hits = _index().for_investigation("connection pool exhausted", ["checkout", "payment"], now=NOW)
    assert [h.path for h in hits[:2]] == ["bits/checkout.md", "bits/payment.md"]
    assert any(h.path == "runbooks/payment-pool.md" for h in hits[2:])


def test_budget_caps_chunks_and_tokens() -> None:
    index = _index()
    assert len(index.for_investigation("pool", ["checkout"], max_chunks=2, now=NOW)) == 2
    small = index.for_investigation("pool exhausted", ["checkout", "payment"], max_tokens=40, now=NOW)
    assert sum(h.tokens for h in small) <= 40
    assert small and small[0].path == "bits/checkout.md"


def test_embedding_failure_degrades_to_bm25_and_says_so() -> None:
    index = KnowledgeIndex.from_documents(CORPUS, HashingEmbedder(fail=True))
    assert index.degraded and "BM25 only" in index.degraded
    assert index.search("CRT-E4471", now=NOW)[0].path == "runbooks/cart-pool.md"


def test_service_filter_prefers_that_services_documents() -> None:
    hits = _index().search("connection pool exhausted acquire timeouts", services=["cart"], k=3, now=NOW)
    assert hits[0].path == "runbooks/cart-pool.md"


def test_bundle_knowledge_gives_resolvable_cites(example_bundles: list) -> None:
    from rootward.bundle.load import load_bundle
    from rootward.knowledge.chunking import chunk_text

    bundle = load_bundle(next(p for p in example_bundles if (p / "knowledge").is_dir()))
    docs = {d.path: d for d in bundle.documents or []}
    services = sorted({s for d in docs.values() for s in d.services})
    hits = KnowledgeIndex.from_documents(list(docs.values()), HashingEmbedder()).for_investigation(
        "latency high", services, now=NOW
    )
    assert hits and hits[0].kind == "bits"
    for hit in hits:
        path, _, chunk = hit.evidence.cite.removeprefix("knowledge/").rpartition("#")
        assert int(chunk) < len(chunk_text(docs[path].text))
