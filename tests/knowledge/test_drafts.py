from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from rootward.knowledge.drafts import (
    DraftError,
    ResolvedFindings,
    accept_draft,
    list_drafts,
    propose_draft,
    reject_draft,
)
from rootward.knowledge.ingest import ingest_directory, load_index
from rootward.store.db import make_engine, make_session_factory
from tests.knowledge.fakes import HashingEmbedder

FINDINGS = ResolvedFindings(
    investigation_id="inv-42",
    service="checkout",
    root_cause_entity="payment-db",
    fault_type="connection_pool_exhaustion",
    symptom="checkout p99 above 2 s; payment pool 20/20 in use",
    evidence=("metrics.csv:payment/db_connections_in_use@1773498540-1773498900", "changes.json:deploy-4711"),
    fix="Rolled back deploy-4711 (maximumPoolSize 20 -> 40).",
    closed_on=date(2026, 9, 30),
)


def test_accepted_draft_is_appended_to_its_runbook_on_disk_and_searchable_at_once(
    migrated_db_url: str, tmp_path: Path
) -> None:
    root = tmp_path / "kb"
    (root / "runbooks").mkdir(parents=True)
    runbook = root / "runbooks/payment-db-connection-pool-exhaustion.md"
    runbook.write_text("---\nservice: payment-db\n---\n# payment-db pool\n\nCheck the pool first.\n")
    sessions = make_session_factory(make_engine(migrated_db_url))
    embedder = HashingEmbedder()
    ingest_directory(sessions, root, embedder)

    draft_id = propose_draft(sessions, FINDINGS)
    [draft] = list_drafts(sessions, "proposed")
    assert draft.id == draft_id and "deploy-4711" in draft.body and "Symptom" in draft.body

    report = accept_draft(sessions, draft_id, "alice", embedder)
    assert report.changed == ["runbooks/payment-db-connection-pool-exhaustion.md"]
    assert "Learned from investigation inv-42" in runbook.read_text()
    hits = load_index(sessions, embedder).search("maximumPoolSize rolled back deploy-4711")
    assert hits[0].path == "runbooks/payment-db-connection-pool-exhaustion.md"
    assert list_drafts(sessions, "accepted")[0].decided_by == "alice"
    # a second ingest of the directory keeps the addition (it was written to the file)
    assert ingest_directory(sessions, root, embedder).unchanged


def test_draft_without_a_runbook_becomes_a_new_one(migrated_db_url: str) -> None:
    sessions = make_session_factory(make_engine(migrated_db_url))
    draft_id = propose_draft(sessions, FINDINGS)
    report = accept_draft(sessions, draft_id, "bob", HashingEmbedder(), today=date(2026, 10, 1))
    assert report.added == ["runbooks/payment-db-connection-pool-exhaustion.md"]
    [chunk] = load_index(sessions, None).chunks
    assert (
        chunk.kind == "runbook" and chunk.updated == date(2026, 10, 1) and chunk.services == ("payment-db", "checkout")
    )


def test_rejected_draft_cannot_be_accepted(migrated_db_url: str) -> None:
    sessions = make_session_factory(make_engine(migrated_db_url))
    draft_id = propose_draft(sessions, FINDINGS)
    reject_draft(sessions, draft_id, "carol", "duplicate")
    with pytest.raises(DraftError, match="already rejected"):
        accept_draft(sessions, draft_id, "dave", None)
    assert not list_drafts(sessions, "proposed")
