from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from rootward.domain.alert import Alert, Severity
from rootward.runtime import intake_writer as writer_module
from rootward.runtime.intake import Submission
from rootward.runtime.intake_writer import IntakeWriter, WriterOverloaded
from rootward.settings import RouterSettings
from rootward.store.db import make_engine, make_session_factory


def alert(fp: str, service: str) -> Alert:
    return Alert(
        fingerprint=fp, name="X", service=service, severity=Severity.P2, status="firing", starts_at=datetime.now(UTC)
    )


def test_concurrent_requests_share_commits_and_each_gets_its_own_decisions(
    migrated_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch_sizes: list[int] = []
    real = writer_module.accept_batches

    def counting(sessions: Any, subs: Sequence[Submission], **kw: Any) -> Any:
        batch_sizes.append(len(subs))
        return real(sessions, subs, **kw)

    monkeypatch.setattr(writer_module, "accept_batches", counting)
    engine = make_engine(migrated_db_url)

    async def scenario() -> list[Any]:
        w = IntakeWriter(make_session_factory(engine), RouterSettings())
        await w.start()
        try:
            subs = [Submission("generic", [alert(f"fp{i}", f"svc{i % 3}")]) for i in range(30)]
            return list(await asyncio.gather(*(w.submit(s) for s in subs)))
        finally:
            await w.stop()

    try:
        results = asyncio.run(scenario())
    finally:
        engine.dispose()
    assert [r.decisions[0].fingerprint for r in results] == [f"fp{i}" for i in range(30)]
    assert len({r.decisions[0].group_id for r in results}) == 3
    assert sum(batch_sizes) >= 30 and len(batch_sizes) < 30  # group commit happened


def test_a_failing_request_does_not_take_the_others_down(migrated_db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = writer_module.accept_batches

    def poisoned(sessions: Any, subs: Sequence[Submission], **kw: Any) -> Any:
        if any(s.source == "poison" for s in subs):
            raise RuntimeError("cannot store this one")
        return real(sessions, subs, **kw)

    monkeypatch.setattr(writer_module, "accept_batches", poisoned)
    engine = make_engine(migrated_db_url)

    async def scenario() -> list[Any]:
        w = IntakeWriter(make_session_factory(engine), RouterSettings())
        await w.start()
        try:
            subs = [Submission("poison" if i == 2 else "generic", [alert(f"fp{i}", "svc")]) for i in range(5)]
            return list(await asyncio.gather(*(w.submit(s) for s in subs), return_exceptions=True))
        finally:
            await w.stop()

    try:
        results = asyncio.run(scenario())
    finally:
        engine.dispose()
    assert isinstance(results[2], RuntimeError)
    assert all(not isinstance(r, Exception) for i, r in enumerate(results) if i != 2)


def test_writer_refuses_more_than_it_may_hold(migrated_db_url: str) -> None:
    engine = make_engine(migrated_db_url)

    async def scenario() -> None:
        w = IntakeWriter(make_session_factory(engine), RouterSettings(), max_pending_alerts=2)
        await w.start()
        try:
            with pytest.raises(WriterOverloaded):
                await w.submit(Submission("generic", [alert(f"fp{i}", "svc") for i in range(3)]))
            assert (await w.submit(Submission("generic", [alert("ok", "svc")]))).decisions
        finally:
            await w.stop()

    try:
        asyncio.run(scenario())
    finally:
        engine.dispose()
