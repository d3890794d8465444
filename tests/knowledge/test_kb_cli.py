from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from rootward.cli import app

RUNNER = CliRunner()


def _kb(root: Path) -> None:
    (root / "runbooks").mkdir(parents=True)
    (root / "bits").mkdir()
    (root / "runbooks/pool.md").write_text(
        "---\nservice: payment\nupdated: 2020-01-01\n---\n# payment pool\n\nPool exhausted, PAY-E4417.\n"
    )
    (root / "bits/payment.md").write_text("# payment notes\n\n- gateway flaky on Sundays\n")


def test_ingest_list_search_json(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    _kb(root)
    db = f"sqlite:///{tmp_path / 'kb.db'}"
    out = RUNNER.invoke(app, ["kb", "ingest", str(root), "--db", db, "--no-dense"])
    assert out.exit_code == 0, out.output
    assert "2 added" in out.output
    again = RUNNER.invoke(app, ["kb", "ingest", str(root), "--db", db, "--no-dense"])
    assert "2 unchanged" in again.output

    listed = RUNNER.invoke(app, ["kb", "list", "--db", db, "--json"])
    assert {d["path"] for d in json.loads(listed.output)} == {"runbooks/pool.md", "bits/payment.md"}

    found = RUNNER.invoke(
        app, ["kb", "search", "PAY-E4417", "--service", "payment", "--json", "--db", db, "--no-dense"]
    )
    data = json.loads(found.output)
    assert data["hits"][0]["cite"] == "knowledge/runbooks/pool.md#0"
    assert data["hits"][0]["stale"] is True and "not updated" in data["hits"][0]["warning"]
    assert "BM25 only" in data["degraded"]


def test_eval_prints_hit_rate_and_near_miss_avoidance(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    _kb(root)
    (root / "runbooks/disk.md").write_text("---\nservice: payment\n---\n# payment disk\n\nVolume full.\n")
    spec = {
        "name": "tiny",
        "now": "2026-10-01",
        "corpus": {"dir": "kb"},
        "queries": [
            {
                "id": "q1",
                "category": "exact_error_code",
                "query": "PAY-E4417",
                "must": ["runbooks/pool.md"],
                "near_miss": ["runbooks/disk.md"],
            },
            {
                "id": "q2",
                "category": "symptom_to_cause",
                "query": "volume full on payment",
                "must": ["runbooks/disk.md"],
                "near_miss": ["runbooks/pool.md"],
            },
        ],
    }
    (tmp_path / "eval.json").write_text(json.dumps(spec))
    out = RUNNER.invoke(app, ["kb", "eval", str(tmp_path / "eval.json"), "--no-dense"])
    assert out.exit_code == 0, out.output
    assert "hit@5                      1.000" in out.output
    assert "near-miss avoidance top 3  1.000" in out.output

    db = f"sqlite:///{tmp_path / 'kb.db'}"
    RUNNER.invoke(app, ["kb", "ingest", str(root), "--db", db, "--no-dense"])
    stored = RUNNER.invoke(
        app, ["kb", "eval", str(tmp_path / "eval.json"), "--from-db", "--db", db, "--no-dense", "--json"]
    )
    assert json.loads(stored.output)["hit_at_5"] == 1.0


def test_drafts_list_accept_reject(tmp_path: Path) -> None:
    from rootward.knowledge.drafts import ResolvedFindings, propose_draft
    from rootward.store.db import make_engine, make_session_factory
    from rootward.store.migrate import upgrade

    db = f"sqlite:///{tmp_path / 'kb.db'}"
    upgrade(db)
    sessions = make_session_factory(make_engine(db))
    findings = ResolvedFindings(
        "inv-1", "cart", "cart-redis", "memory_leak", "cart p99 up", ("logs.jsonl:12",), "Bounded the cache."
    )
    first, second = propose_draft(sessions, findings), propose_draft(sessions, findings)

    listed = RUNNER.invoke(app, ["kb", "drafts", "list", "--db", db])
    assert first in listed.output and "2 drafts" in listed.output
    accepted = RUNNER.invoke(app, ["kb", "drafts", "accept", first, "--by", "alice", "--db", db, "--no-dense"])
    assert accepted.exit_code == 0 and "1 added" in accepted.output
    rejected = RUNNER.invoke(app, ["kb", "drafts", "reject", second, "--db", db])
    assert rejected.exit_code == 0
    again = RUNNER.invoke(app, ["kb", "drafts", "accept", second, "--db", db, "--no-dense"])
    assert again.exit_code == 1 and "already rejected" in again.output
    found = RUNNER.invoke(app, ["kb", "search", "bounded the cache", "--db", db, "--no-dense", "--json"])
    assert json.loads(found.output)["hits"][0]["cite"] == "knowledge/runbooks/cart-redis-memory-leak.md#0"


def test_ingest_without_directory_uses_configured_directories(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "kb"
    _kb(root)
    config = tmp_path / "rootward.yaml"
    config.write_text(f"knowledge:\n  directories: [{root}]\n  embedder: none\n")
    monkeypatch.setenv("ROOTWARD_CONFIG", str(config))
    db = f"sqlite:///{tmp_path / 'kb.db'}"
    out = RUNNER.invoke(app, ["kb", "ingest", "--db", db])
    assert out.exit_code == 0, out.output
    assert "2 added" in out.output and "degraded: no embedder" in out.output


def test_make_embedder_follows_settings() -> None:
    import pytest

    from rootward.knowledge.embeddings import LocalEmbedder, OpenAIEmbedder
    from rootward.knowledge.settings import KnowledgeSettings, make_embedder

    assert make_embedder(KnowledgeSettings(embedder="none")) is None
    assert isinstance(make_embedder(KnowledgeSettings()), LocalEmbedder)
    remote = make_embedder(KnowledgeSettings(embedder="openai", base_url="http://127.0.0.1:9/v1", model="m"))
    assert isinstance(remote, OpenAIEmbedder) and remote.model_id == "openai:m"
    with pytest.raises(ValueError, match="base_url"):
        make_embedder(KnowledgeSettings(embedder="openai"))
