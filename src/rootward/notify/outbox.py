"""Durable, ordered, at-most-once-per-key delivery of notifications.

A notification is written to the outbox in the same transaction as whatever
caused it; a dispatcher delivers each channel's rows strictly in order. A
failing channel holds its queue (later messages never overtake an earlier
one) and is retried with capped backoff for as long as it takes: nothing is
dropped. A row is marked delivered in its own transaction right after the
channel accepted it, and the idempotency key travels with the message so a
receiver can drop the rare replay after a crash between the two.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session, sessionmaker

from rootward.notify.channels import Channel, DeliveryFailed
from rootward.notify.message import Notification
from rootward.store.outbox import OutboxRow

BACKOFF_S = (1, 2, 5, 10, 30, 60)


def _now() -> datetime:
    return datetime.now(UTC)


def enqueue(
    session: Session, notification: Notification, channels: Sequence[str], *, key: str, now: datetime | None = None
) -> list[OutboxRow]:
    """Add one row per channel; a key already queued for a channel is not queued twice."""
    at = now or _now()
    rows = []
    for channel in channels:
        exists = session.scalar(
            select(func.count()).select_from(OutboxRow).where(OutboxRow.channel == channel, OutboxRow.key == key)
        )
        if exists:
            continue
        row = OutboxRow(
            channel=channel,
            key=key,
            investigation_id=notification.investigation_id,
            payload=notification.to_dict(),
            status="pending",
            attempts=0,
            created_at=at,
            next_attempt_at=at,
        )
        session.add(row)
        rows.append(row)
    session.flush()
    return rows


def backlog(session: Session) -> dict[str, int]:
    rows = session.execute(
        select(OutboxRow.channel, func.count()).where(OutboxRow.status == "pending").group_by(OutboxRow.channel)
    )
    return {channel: count for channel, count in rows}


def _channel_lock_id(channel: str) -> int:
    return int.from_bytes(hashlib.sha256(channel.encode()).digest()[:8], "big", signed=True)


class OutboxDispatcher:
    def __init__(
        self,
        session_factory: sessionmaker[Session],
        channels: Mapping[str, Channel],
        *,
        clock: Callable[[], datetime] = _now,
        backoff_s: Sequence[float] = BACKOFF_S,
    ) -> None:
        self._sessions = session_factory
        self._channels = dict(channels)
        self._clock = clock
        self._backoff = tuple(backoff_s)
        self._local = threading.Lock()

    def deliver_once(self, max_per_channel: int = 500) -> int:
        """Deliver what is due on every channel; returns how many were delivered."""
        delivered = 0
        with self._local:
            for name, channel in self._channels.items():
                delivered += self._drain(name, channel, max_per_channel)
        return delivered

    def _drain(self, name: str, channel: Channel, limit: int) -> int:
        done = 0
        while done < limit:
            with self._sessions() as session, session.begin():
                bind = session.get_bind()
                if bind.dialect.name == "postgresql":
                    got = session.scalar(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": _channel_lock_id(name)})
                    if not got:
                        return done  # another dispatcher holds this channel; order stays intact
                head = session.scalars(
                    select(OutboxRow)
                    .where(OutboxRow.channel == name, OutboxRow.status == "pending")
                    .order_by(OutboxRow.id)
                    .limit(1)
                ).first()
                if head is None:
                    return done
                now = self._clock()
                due = head.next_attempt_at if head.next_attempt_at.tzinfo else head.next_attempt_at.replace(tzinfo=UTC)
                if due > now:
                    return done  # the head is backing off; later rows wait behind it
                head.attempts += 1
                try:
                    receipt = channel.send(Notification.from_dict(head.payload), idempotency_key=head.key)
                except DeliveryFailed as exc:
                    head.last_error = str(exc)[:2000]
                    wait = self._backoff[min(head.attempts - 1, len(self._backoff) - 1)]
                    head.next_attempt_at = now + timedelta(seconds=wait)
                    return done
                head.status = "delivered"
                head.receipt = receipt[:256]
                head.delivered_at = now
                head.last_error = None
                done += 1
        return done

    def run(self, stop: threading.Event, poll_s: float = 1.0) -> None:
        while not stop.is_set():
            self.deliver_once()
            stop.wait(poll_s)
