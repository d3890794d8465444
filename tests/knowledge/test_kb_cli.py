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
