"""The outbox's claim lease: a crashed sender's message is sent again later, a live one never twice at once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import SecretStr, ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.notify.message import Notification
from rootward.notify.outbox import OutboxDispatcher, backlog, enqueue
from rootward.notify.settings import NotifySettings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.outbox import OutboxRow


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 14, 14, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class RecordingChannel:
    name = "pager"

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, notification: Notification, *, idempotency_key: str) -> str:
        self.sent.append(idempotency_key)
        return f"r{len(self.sent)}"


@pytest.fixture
def sessions(migrated_db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(migrated_db_url)
    yield make_session_factory(engine)
    engine.dispose()


def _queue(sessions: sessionmaker[Session], clock: Clock, *keys: str) -> None:
    with sessions() as s, s.begin():
        for key in keys:
            note = Notification(investigation_id=key, title="t", tier="L1", summary="s", summary_source="rule")
            enqueue(s, note, ["pager"], key=key, now=clock.now)


def test_message_of_a_sender_that_died_mid_send_is_sent_again_once_its_lease_ends(
    sessions: sessionmaker[Session],
) -> None:
    clock, channel = Clock(), RecordingChannel()
    _queue(sessions, clock, "a", "b")
    crashed = OutboxDispatcher(sessions, {"pager": channel}, clock=clock, lease_s=60)
    assert crashed.claim("pager") is not None  # claimed, then the process died before sending or marking
    survivor = OutboxDispatcher(sessions, {"pager": channel}, clock=clock, lease_s=60)

    assert survivor.deliver_once() == 0  # leased: neither "a" nor, behind it, "b" goes out
    clock.now += timedelta(seconds=61)
    assert survivor.deliver_once() == 2

    assert channel.sent == ["a", "b"]
    with sessions() as s:
        rows = list(s.scalars(select(OutboxRow).order_by(OutboxRow.id)))
        assert [(r.status, r.attempts, r.receipt) for r in rows] == [("delivered", 2, "r1"), ("delivered", 1, "r2")]
        assert backlog(s) == {}


def test_only_one_of_two_dispatchers_claims_the_head(sessions: sessionmaker[Session]) -> None:
    clock, channel = Clock(), RecordingChannel()
    _queue(sessions, clock, "a")
    first = OutboxDispatcher(sessions, {"pager": channel}, clock=clock)
    second = OutboxDispatcher(sessions, {"pager": channel}, clock=clock)
    assert first.claim("pager") is not None
    assert second.claim("pager") is None
    with sessions() as s:
        assert backlog(s) == {"pager": 1}  # a message being sent is still undelivered


def test_channel_timeout_at_or_over_the_busy_timeout_is_refused_by_name() -> None:
    hook = {"name": "bridge", "url": "http://127.0.0.1:9/hook", "secret": SecretStr("s"), "timeout_s": 35}
    with pytest.raises(ValidationError, match=r"notify.webhooks.bridge.timeout_s is 35: .* busy timeout \(30 s\)"):
        NotifySettings.model_validate({"webhooks": [hook]})
    assert NotifySettings.model_validate({"webhooks": [{**hook, "timeout_s": 29}]}).webhooks[0].timeout_s == 29
