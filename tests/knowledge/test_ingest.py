from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from rootward.knowledge.ingest import ingest_directory, load_index
from rootward.store.db import make_engine, make_session_factory
from tests.knowledge.fakes import HashingEmbedder

NOW = date(2026, 10, 1)
POOL = "---\nservice: payment\nupdated: 2026-09-01\n---\n# payment pool\n\nPool exhausted, PAY-E4417.\n"
DISK = "---\nservice: payment-db\nupdated: 2026-09-01\n---\n# payment-db disk\n\nVolume full, ENOSPC.\n"


def _write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


def test_unchanged_changed_and_removed_documents(migrated_db_url: str, tmp_path: Path) -> None:
    root = tmp_path / "kb"
    _write(root, "runbooks/pool.md", POOL)
    _write(root, "runbooks/disk.md", DISK)
    _write(root, "bits/payment.md", "# payment notes\n\n- gateway flaky on Sundays\n")
    sessions = make_session_factory(make_engine(migrated_db_url))
    embedder = HashingEmbedder()

    first = ingest_directory(sessions, root, embedder)
    assert sorted(first.added) == ["bits/payment.md", "runbooks/disk.md", "runbooks/pool.md"]
    assert first.embedded_chunks == 3

    embedder.calls = 0
    again = ingest_directory(sessions, root, embedder)
    assert embedder.calls == 0  # unchanged → no embedding work at all
    assert len(again.unchanged) == 3 and not again.added and not again.changed

    _write(root, "runbooks/pool.md", POOL.replace("PAY-E4417", "PAY-E9999"))
    (root / "runbooks/disk.md").unlink()
    embedder.texts.clear()
    third = ingest_directory(sessions, root, embedder)
    assert third.changed == ["runbooks/pool.md"] and third.removed == ["runbooks/disk.md"]
    assert len(embedder.texts) == 1 and "PAY-E9999" in embedder.texts[0]

    index = load_index(sessions, embedder)
    assert index.degraded is None
    assert {c.path for c in index.chunks} == {"runbooks/pool.md", "bits/payment.md"}
    assert index.search("PAY-E9999", now=NOW)[0].evidence.cite == "knowledge/runbooks/pool.md#0"
    assert not index.search("PAY-E4417 ENOSPC", now=NOW) or all(
        "disk" not in h.path for h in index.search("ENOSPC", now=NOW)
    )


def test_vectors_of_another_model_are_never_mixed_in(
    migrated_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "kb"
    _write(root, "runbooks/pool.md", POOL)
    _write(root, "runbooks/disk.md", DISK)
    sessions = make_session_factory(make_engine(migrated_db_url))
    ingest_directory(sessions, root, HashingEmbedder(dim=64))
    # a few chunks without a usable vector are embedded at load, in memory
    fresh = HashingEmbedder(dim=128)
    assert load_index(sessions, fresh).degraded is None and len(fresh.texts) == 2
    # many: BM25 only, said out loud, until a re-ingest
    monkeypatch.setattr("rootward.knowledge.ingest.MAX_EMBED_AT_LOAD", 1)
    index = load_index(sessions, HashingEmbedder(dim=128))
    assert index.degraded and "BM25 only" in index.degraded
    assert index.search("pool exhausted", now=NOW)[0].path == "runbooks/pool.md"
    # re-ingesting with the new model re-embeds although the text is unchanged
    report = ingest_directory(sessions, root, HashingEmbedder(dim=128))
    assert report.changed == ["runbooks/disk.md", "runbooks/pool.md"]
    assert load_index(sessions, HashingEmbedder(dim=128)).degraded is None


def test_watch_picks_up_a_changed_runbook_within_seconds(tmp_path: Path) -> None:
    import threading
    import time

    from rootward.knowledge.ingest import IngestReport, watch_directory
    from rootward.store.base import Base

    root = tmp_path / "kb"
    _write(root, "runbooks/pool.md", POOL)
    engine = make_engine(f"sqlite:///{tmp_path / 'kb.db'}")
    Base.metadata.create_all(engine)
    sessions = make_session_factory(engine)
    reports: list[IngestReport] = []
    stop = threading.Event()
    thread = threading.Thread(
        target=watch_directory,
        args=(sessions, root, HashingEmbedder(), reports.append),
        kwargs={"interval_s": 0.05, "stop": stop.is_set},
        daemon=True,
    )
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not reports and time.monotonic() < deadline:
            time.sleep(0.02)
        _write(root, "runbooks/pool.md", POOL.replace("PAY-E4417", "PAY-E7777") + "\nMore.\n")
        changed_at = time.monotonic()
        while len(reports) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop.set()
        thread.join(5)
    assert reports[0].added == ["runbooks/pool.md"]
    assert reports[1].changed == ["runbooks/pool.md"]
    assert time.monotonic() - changed_at < 5
    assert load_index(sessions, HashingEmbedder()).search("PAY-E7777", now=NOW)[0].path == "runbooks/pool.md"


def test_a_file_that_does_not_parse_is_reported_and_the_rest_ingested(migrated_db_url: str, tmp_path: Path) -> None:
    root = tmp_path / "kb"
    _write(root, "runbooks/pool.md", POOL)
    _write(root, "runbooks/broken.md", "---\nservice: [unclosed\n---\n# broken\n")
    sessions = make_session_factory(make_engine(migrated_db_url))
    report = ingest_directory(sessions, root, HashingEmbedder())
    assert report.added == ["runbooks/pool.md"]
    assert len(report.errors) == 1 and "runbooks/broken.md" in report.errors[0]
    assert "skipped" in report.summary()
