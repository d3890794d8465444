"""The audit trail: an append-only, hash-chained log of every intake, decision and step.

Each row stores `hash = sha256(prev_hash ‖ canonical JSON of {at, kind,
subject, data})`, so editing, deleting or reordering any row breaks the chain
at that row, which `verify_chain` (and `rootward audit verify`) reports.

Appends are serialized so two writers never chain onto the same tail: on
PostgreSQL by a transaction-scoped advisory lock, on SQLite by the single
writer that `BEGIN IMMEDIATE` (store/db.py) already guarantees. The tail hash
is cached per transaction, so a batch of appends costs one read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

import orjson
from sqlalchemy import BigInteger, Integer, String, Table, Text, event, select, text
from sqlalchemy.orm import Mapped, Session, SessionTransaction, mapped_column

from rootward.store.base import Base

GENESIS = "0" * 64
# Arbitrary constant shared by every rootward process: "the audit tail" lock.
AUDIT_LOCK_KEY = 0x726F6F74_61756469  # "rootaudi"
_TAIL = "rootward.audit.tail"


class AuditRow(Base):
    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True)
    at: Mapped[str] = mapped_column(String(40))  # ISO 8601 UTC, hashed as stored
    kind: Mapped[str] = mapped_column(String(64), index=True)
    subject: Mapped[str] = mapped_column(String(200), index=True)
    data: Mapped[str] = mapped_column(Text)  # canonical JSON
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))


_TABLE = cast(Table, AuditRow.__table__)
_TAIL_HASH = select(_TABLE.c.hash).order_by(_TABLE.c.id.desc()).limit(1)
_INSERT = _TABLE.insert()


@dataclass(frozen=True)
class AuditEntry:
    kind: str
    subject: str
    data: dict[str, Any]


def canonical_json(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def chain_hash(prev_hash: str, at: str, kind: str, subject: str, data: Any) -> str:
    body = canonical_json({"at": at, "kind": kind, "subject": subject, "data": data})
    return hashlib.sha256(prev_hash.encode() + body).hexdigest()


def lock_audit_chain(session: Session) -> None:
    """Hold the audit lock until this transaction ends (PostgreSQL; SQLite's writer lock already does).

    Callers whose reads must not race with other writers take it first: the
    intake router reads "is this fingerprint known, is this group open" and
    must act on it before another API replica does.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": AUDIT_LOCK_KEY})


def _tail(session: Session) -> str:
    """Lock the chain for this transaction (once) and return the current tail hash."""
    cached = session.info.get(_TAIL)
    if cached is not None:
        return str(cached)
    lock_audit_chain(session)
    last = session.execute(_TAIL_HASH).scalar()
    return last or GENESIS


def append_audit_many(session: Session, entries: Iterable[AuditEntry]) -> None:
    """Append entries in order, in the caller's transaction (they commit or vanish with it)."""
    prev = _tail(session)
    at = datetime.now(UTC).isoformat()
    rows = []
    for entry in entries:
        data = orjson.loads(canonical_json(entry.data))  # the exact value verify will re-read
        digest = chain_hash(prev, at, entry.kind, entry.subject, data)
        rows.append(
            {
                "at": at,
                "kind": entry.kind,
                "subject": entry.subject,
                "data": canonical_json(data).decode(),
                "prev_hash": prev,
                "hash": digest,
            }
        )
        prev = digest
    if rows:
        session.execute(_INSERT, rows)
        session.info[_TAIL] = prev


def append_audit(session: Session, kind: str, subject: str, data: dict[str, Any]) -> None:
    """Record one event (e.g. kind="job.claimed", subject=job id) in the caller's transaction."""
    append_audit_many(session, [AuditEntry(kind, subject, data)])


@event.listens_for(Session, "after_transaction_end")
def _forget_tail(session: Session, transaction: SessionTransaction) -> None:
    # Any end (even of a savepoint that may have rolled appends back) invalidates the cache.
    session.info.pop(_TAIL, None)


@dataclass(frozen=True)
class ChainBreak:
    row_id: int
    reason: str


@dataclass(frozen=True)
class ChainReport:
    rows: int
    broken: ChainBreak | None

    @property
    def ok(self) -> bool:
        return self.broken is None


def _rows(session: Session, batch: int = 5000) -> Iterator[AuditRow]:
    last_id = 0
    while True:
        chunk = session.scalars(select(AuditRow).where(AuditRow.id > last_id).order_by(AuditRow.id).limit(batch)).all()
        if not chunk:
            return
        yield from chunk
        last_id = chunk[-1].id


def verify_chain(session: Session) -> ChainReport:
    """Recompute every hash in id order; report the first row that does not match."""
    prev = GENESIS
    count = 0
    for row in _rows(session):
        count += 1
        if row.prev_hash != prev:
            return ChainReport(count, ChainBreak(row.id, "prev_hash does not match the previous row's hash"))
        try:
            data = orjson.loads(row.data)
        except orjson.JSONDecodeError:
            return ChainReport(count, ChainBreak(row.id, "data is not valid JSON"))
        if chain_hash(prev, row.at, row.kind, row.subject, data) != row.hash:
            return ChainReport(count, ChainBreak(row.id, "hash does not match the row's content"))
        prev = row.hash
    return ChainReport(count, None)
