from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from rootward.store.audit import GENESIS, append_audit, verify_chain
from rootward.store.db import make_engine, make_session_factory


@pytest.fixture
def sessions(migrated_db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(migrated_db_url)
    yield make_session_factory(engine)
    engine.dispose()


def fill(sessions: sessionmaker[Session], n: int) -> None:
    for i in range(n):
        with sessions.begin() as s:
            append_audit(s, "test.event", f"subject-{i}", {"i": i, "nested": {"b": 2, "a": [1, "x"]}})


def test_appended_rows_form_a_verifiable_chain(sessions: sessionmaker[Session]) -> None:
    fill(sessions, 5)
    with sessions() as s:
        report = verify_chain(s)
        first = s.execute(text("SELECT prev_hash FROM audit_log ORDER BY id LIMIT 1")).scalar()
    assert report.ok and report.rows == 5
    assert first == GENESIS


def test_verify_catches_a_row_edited_behind_its_back(sessions: sessionmaker[Session]) -> None:
    fill(sessions, 5)
    with sessions.begin() as s:
        third = s.execute(text("SELECT id FROM audit_log ORDER BY id LIMIT 1 OFFSET 2")).scalar()
        s.execute(text("UPDATE audit_log SET data = :d WHERE id = :id"), {"d": '{"i":99}', "id": third})
    with sessions() as s:
        report = verify_chain(s)
    assert report.broken is not None
    assert report.broken.row_id == third
    assert "hash does not match" in report.broken.reason


def test_verify_catches_a_deleted_row(sessions: sessionmaker[Session]) -> None:
    fill(sessions, 4)
    with sessions.begin() as s:
        ids = s.execute(text("SELECT id FROM audit_log ORDER BY id")).scalars().all()
        s.execute(text("DELETE FROM audit_log WHERE id = :id"), {"id": ids[1]})
    with sessions() as s:
        report = verify_chain(s)
    assert report.broken is not None and report.broken.row_id == ids[2]
    assert "prev_hash" in report.broken.reason


def test_rolled_back_appends_leave_no_trace(sessions: sessionmaker[Session]) -> None:
    fill(sessions, 2)
    with pytest.raises(RuntimeError), sessions.begin() as s:
        append_audit(s, "test.event", "doomed", {})
        raise RuntimeError("abort")
    fill(sessions, 1)
    with sessions() as s:
        assert verify_chain(s).rows == 3 and verify_chain(s).ok


def test_concurrent_writers_never_fork_the_chain(sessions: sessionmaker[Session]) -> None:
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(15):
                with sessions.begin() as s:
                    append_audit(s, "test.concurrent", f"w{n}", {"i": i})
                    append_audit(s, "test.concurrent", f"w{n}", {"i": i, "second": True})
        except BaseException as exc:  # pragma: no cover - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with sessions() as s:
        report = verify_chain(s)
    assert report.ok and report.rows == 4 * 15 * 2
