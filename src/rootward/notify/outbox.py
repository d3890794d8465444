"""Durable, ordered, at-most-once-per-key delivery of notifications.

A notification is written to the outbox in the same transaction as whatever
caused it; a dispatcher delivers each channel's rows strictly in order. A
failing channel holds its queue (later messages never overtake an earlier
one) and is retried with capped backoff for as long as it takes: nothing is
dropped. A target that refuses a message for good (`DeliveryRefused`: bad
credentials, no such incident) gets the row marked `failed` with the reason,
kept for the operator, and the channel's next row goes out.

No database transaction is open while a channel is called. On SQLite every
transaction holds the one write lock, so a receiver that accepts the
connection and never answers would otherwise stall all intake for the
channel's timeout. Each delivery is three short transactions around the call:

1. claim: the channel's head row becomes `sending`, its `attempts` goes up
   by one (the claim's fencing token, as for jobs) and `next_attempt_at`
   becomes the lease's end. The claim is a conditional update on the
   attempts seen, so of two dispatchers only one wins; the other sees a head
   that is not due and waits, which keeps the order.
2. send, with no session open.
3. mark: delivered, or back to `pending` with its backoff, only if the row
   still carries this claim's attempt.

A dispatcher that dies between 1 and 3 leaves a `sending` row whose lease
runs out; the next dispatcher claims it again then. The lease is longer than
any channel's timeout (`notify.settings`), so a live send is never repeated
concurrently; the idempotency key travels with the message so a receiver can
drop the rare replay after a crash between 2 and 3.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from rootward.notify.channels import Channel, DeliveryFailed, DeliveryRefused
from rootward.notify.message import Notification
from rootward.store.busy_timeout import SQLITE_BUSY_TIMEOUT_S
from rootward.store.outbox import OutboxRow

log = logging.getLogger(__name__)
UNDELIVERED = ("pending", "sending")
# Longer than any channel timeout (each is validated below the busy timeout), so a live send keeps its claim.
LEASE_S = 2 * SQLITE_BUSY_TIMEOUT_S
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
    """Undelivered rows per channel (waiting or being sent)."""
    rows = session.execute(
        select(OutboxRow.channel, func.count()).where(OutboxRow.status.in_(UNDELIVERED)).group_by(OutboxRow.channel)
    )
    return {channel: count for channel, count in rows}


@dataclass(frozen=True)
class Claim:
    """A head row this dispatcher may send: its id, the claim's attempt, and what to send."""

    row_id: int
    attempt: int
    payload: dict[str, Any]
    key: str


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class OutboxDispatcher:
    def __init__(
        self,
        session_factory: sessionmaker[Session],
        channels: Mapping[str, Channel],
        *,
        clock: Callable[[], datetime] = _now,
        backoff_s: Sequence[float] = BACKOFF_S,
        lease_s: float = LEASE_S,
    ) -> None:
        self._sessions = session_factory
        self._channels = dict(channels)
        self._clock = clock
        self._backoff = tuple(backoff_s)
        self._lease = timedelta(seconds=lease_s)
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
            claim = self.claim(name)
            if claim is None:
                return done  # empty, backing off, or being sent by another dispatcher
            try:
                receipt = channel.send(Notification.from_dict(claim.payload), idempotency_key=claim.key)
            except DeliveryRefused as exc:
                self._refused(claim, str(exc))
                continue  # a row the target will never take does not hold the rows behind it
            except DeliveryFailed as exc:
                self._failed(claim, str(exc))
                return done
            done += 1
            if not self._delivered(claim, receipt):
                return done
        return done

    def claim(self, name: str) -> Claim | None:
        """Claim the channel's head row if it is due (one short transaction), or None."""
        with self._sessions() as session, session.begin():
            head = session.scalars(
                select(OutboxRow)
                .where(OutboxRow.channel == name, OutboxRow.status.in_(UNDELIVERED))
                .order_by(OutboxRow.id)
                .limit(1)
            ).first()
            now = self._clock()
            if head is None or _utc(head.next_attempt_at) > now:
                return None  # the head backs off or is leased; later rows wait behind it
            won = session.execute(
                update(OutboxRow)
                .where(OutboxRow.id == head.id, OutboxRow.attempts == head.attempts, OutboxRow.status == head.status)
                .values(status="sending", attempts=head.attempts + 1, next_attempt_at=now + self._lease)
                .execution_options(synchronize_session=False)
            )
            if won.rowcount != 1:  # type: ignore[attr-defined]
                return None  # another dispatcher claimed it first
            return Claim(head.id, head.attempts + 1, dict(head.payload), head.key)

    def _mark(self, claim: Claim, **values: Any) -> bool:
        with self._sessions() as session, session.begin():
            result = session.execute(
                update(OutboxRow)
                .where(OutboxRow.id == claim.row_id, OutboxRow.attempts == claim.attempt, OutboxRow.status == "sending")
                .values(**values)
                .execution_options(synchronize_session=False)
            )
            if result.rowcount == 1:  # type: ignore[attr-defined]
                return True
        log.warning("outbox row %d: its claim ran out during the send; another dispatcher owns it", claim.row_id)
        return False

    def _delivered(self, claim: Claim, receipt: str) -> bool:
        return self._mark(claim, status="delivered", receipt=receipt[:256], delivered_at=self._clock(), last_error=None)

    def _failed(self, claim: Claim, error: str) -> None:
        wait = self._backoff[min(claim.attempt - 1, len(self._backoff) - 1)]
        self._mark(
            claim,
            status="pending",
            last_error=error[:2000],
            next_attempt_at=self._clock() + timedelta(seconds=wait),
        )

    def _refused(self, claim: Claim, error: str) -> None:
        log.error("outbox row %d: permanent failure, not retried: %s", claim.row_id, error)
        self._mark(claim, status="failed", last_error=f"permanent: {error}"[:2000])

    def run(self, stop: threading.Event, poll_s: float = 1.0) -> None:
        while not stop.is_set():
            self.deliver_once()
            stop.wait(poll_s)
