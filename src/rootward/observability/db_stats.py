"""What the database says about rootward's operation, read with SQL aggregates.

Every process (API or worker) writes its state to the shared database, so the
API's `/metrics` reads it from there instead of each process keeping its own
counters: one scrape target sees the whole fleet, and a restart loses nothing.
Each reader is one `GROUP BY` (never a scan in Python), so a scrape stays
cheap with millions of rows. Histograms are bucket counts computed in SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Float, case, func, literal, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from rootward.store.alerts import AlertGroupRow, RoutingDecisionRow
from rootward.store.approvals import ApprovalRow
from rootward.store.investigations import InvestigationRow
from rootward.store.jobs import Job, WorkerHeartbeat
from rootward.store.llm_calls import LLMCallRow
from rootward.store.outbox import OutboxRow
from rootward.store.worldmodel import WmProposalRow

# Seconds. Investigations take seconds to minutes; queue waits from ms to minutes.
DURATION_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800)
WAIT_BUCKETS = (0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600)

Labels = tuple[str, ...]


@dataclass(frozen=True)
class HistogramData:
    """Cumulative bucket counts (`le` upper bounds, +Inf last), count and sum, per label set."""

    buckets: tuple[float, ...]
    series: dict[Labels, tuple[list[int], int, float]] = field(default_factory=dict)


@dataclass
class DbSnapshot:
    """Everything `/metrics` exposes, as plain values keyed by label tuples."""

    routing_decisions: dict[Labels, int] = field(default_factory=dict)  # (tier, action)
    alert_groups: dict[Labels, int] = field(default_factory=dict)  # (tier, status)
    jobs: dict[Labels, int] = field(default_factory=dict)  # (status,)
    oldest_queued_s: float = 0.0
    queue_wait: HistogramData = field(default_factory=lambda: HistogramData(WAIT_BUCKETS))
    job_duration: HistogramData = field(default_factory=lambda: HistogramData(DURATION_BUCKETS))
    workers_alive: int = 0
    worker_slots: int = 0
    investigations: dict[Labels, int] = field(default_factory=dict)  # (status, tier)
    investigation_duration: HistogramData = field(default_factory=lambda: HistogramData(DURATION_BUCKETS))
    first_hypothesis: HistogramData = field(default_factory=lambda: HistogramData(DURATION_BUCKETS))
    llm_calls: dict[Labels, int] = field(default_factory=dict)  # (provider, model, service, status)
    llm_tokens: dict[Labels, int] = field(default_factory=dict)  # (provider, model, service, direction)
    llm_cost: dict[Labels, float] = field(default_factory=dict)  # (provider, model, service)
    llm_duration: HistogramData = field(default_factory=lambda: HistogramData(WAIT_BUCKETS))
    outbox: dict[Labels, int] = field(default_factory=dict)  # (channel, status)
    outbox_oldest_pending_s: dict[Labels, float] = field(default_factory=dict)  # (channel,)
    approvals: dict[Labels, int] = field(default_factory=dict)  # (status,)
    verdicts: dict[Labels, int] = field(default_factory=dict)  # (action_class, verdict)
    errors: dict[str, str] = field(default_factory=dict)  # section -> why it could not be read


def epoch_seconds(session: Session, column: Any) -> ColumnElement[float]:
    """A timestamp column as Unix seconds, on PostgreSQL and SQLite (stored as naive UTC text)."""
    if session.get_bind().dialect.name == "postgresql":
        return func.extract("epoch", column).cast(Float)
    return (func.julianday(column) - 2440587.5) * 86400.0


def histogram(
    session: Session,
    value: ColumnElement[Any],
    buckets: Sequence[float],
    labels: Sequence[Any],
    where: Sequence[ColumnElement[bool]] = (),
    from_: Any = None,
) -> HistogramData:
    """Bucket counts of `value` per label set, in one query (cumulative, like Prometheus)."""
    columns: list[Any] = [
        *labels,
        *(func.sum(case((value <= bound, 1), else_=0)) for bound in buckets),
        func.count(),
        func.coalesce(func.sum(value), 0.0),
    ]
    query = select(*columns)
    if from_ is not None:
        query = query.select_from(from_)
    for clause in where:
        query = query.where(clause)
    if labels:
        query = query.group_by(*labels)
    out = HistogramData(tuple(buckets))
    for row in session.execute(query).all():
        key = tuple(str(v) for v in row[: len(labels)])
        counts = [int(c or 0) for c in row[len(labels) : len(labels) + len(buckets)]]
        total, summed = int(row[-2] or 0), float(row[-1] or 0.0)
        if total:
            out.series[key] = (counts, total, summed)
    return out


def _counts(session: Session, *columns: Any, where: Sequence[ColumnElement[bool]] = ()) -> dict[Labels, int]:
    query = select(*columns, func.count()).group_by(*columns)
    for clause in where:
        query = query.where(clause)
    return {tuple(str(v) for v in row[:-1]): int(row[-1]) for row in session.execute(query).all()}


def _routing(session: Session, snap: DbSnapshot, now: datetime) -> None:
    snap.routing_decisions = _counts(session, RoutingDecisionRow.tier, RoutingDecisionRow.action)
    snap.alert_groups = _counts(session, AlertGroupRow.tier, AlertGroupRow.status)


def _queue(session: Session, snap: DbSnapshot, now: datetime) -> None:
    snap.jobs = _counts(session, Job.status)
    oldest = session.scalar(select(func.min(Job.enqueued_at)).where(Job.status == "queued"))
    if oldest is not None:  # func.min keeps the column's UTC type: already aware
        snap.oldest_queued_s = max(0.0, (now - oldest).total_seconds())
    wait = epoch_seconds(session, Job.started_at) - epoch_seconds(session, Job.enqueued_at)
    snap.queue_wait = histogram(session, wait, WAIT_BUCKETS, [Job.tier], [Job.started_at.is_not(None)])
    run = epoch_seconds(session, Job.finished_at) - epoch_seconds(session, Job.started_at)
    snap.job_duration = histogram(
        session, run, DURATION_BUCKETS, [Job.status], [Job.finished_at.is_not(None), Job.started_at.is_not(None)]
    )
    beats = session.execute(select(WorkerHeartbeat.last_beat, WorkerHeartbeat.slots)).all()
    alive = [slots for beat, slots in beats if beat is not None and (now - beat).total_seconds() < 60]
    snap.workers_alive, snap.worker_slots = len(alive), sum(alive)


def _investigations(session: Session, snap: DbSnapshot, now: datetime) -> None:
    snap.investigations = _counts(session, InvestigationRow.status, InvestigationRow.tier)
    seconds = InvestigationRow.total_ms / 1000.0
    snap.investigation_duration = histogram(
        session, seconds, DURATION_BUCKETS, [InvestigationRow.status, InvestigationRow.tier]
    )
    first = InvestigationRow.first_hypothesis_ms / 1000.0
    snap.first_hypothesis = histogram(
        session, first, DURATION_BUCKETS, [InvestigationRow.tier], [InvestigationRow.first_hypothesis_ms.is_not(None)]
    )


def _llm(session: Session, snap: DbSnapshot, now: datetime) -> None:
    keys = (LLMCallRow.provider, LLMCallRow.model, LLMCallRow.service)
    rows = session.execute(
        select(
            *keys,
            LLMCallRow.status,
            func.count(),
            func.coalesce(func.sum(LLMCallRow.input_tokens), 0),
            func.coalesce(func.sum(LLMCallRow.output_tokens), 0),
            func.coalesce(func.sum(LLMCallRow.cost_usd), 0.0),
        ).group_by(*keys, LLMCallRow.status)
    ).all()
    for provider, model, service, status, n, tin, tout, cost in rows:
        base = (str(provider), str(model), str(service))
        snap.llm_calls[(*base, str(status))] = int(n)
        for direction, tokens in (("input", tin), ("output", tout)):
            key = (*base, direction)
            snap.llm_tokens[key] = snap.llm_tokens.get(key, 0) + int(tokens)
        snap.llm_cost[base] = snap.llm_cost.get(base, 0.0) + float(cost)
    snap.llm_duration = histogram(
        session, LLMCallRow.duration_ms / 1000.0, WAIT_BUCKETS, [LLMCallRow.provider, LLMCallRow.model]
    )


def _outbox(session: Session, snap: DbSnapshot, now: datetime) -> None:
    snap.outbox = _counts(session, OutboxRow.channel, OutboxRow.status)
    age = literal(now.timestamp()) - epoch_seconds(session, OutboxRow.created_at)
    rows = session.execute(
        select(OutboxRow.channel, func.max(age)).where(OutboxRow.status == "pending").group_by(OutboxRow.channel)
    ).all()
    snap.outbox_oldest_pending_s = {(str(ch),): max(0.0, float(v or 0.0)) for ch, v in rows}


def _approvals(session: Session, snap: DbSnapshot, now: datetime) -> None:
    snap.approvals = _counts(session, ApprovalRow.status)
    snap.verdicts = _counts(
        session, WmProposalRow.action_class, WmProposalRow.verdict, where=[WmProposalRow.verdict.is_not(None)]
    )


READERS: tuple[tuple[str, Callable[[Session, DbSnapshot, datetime], None]], ...] = (
    ("routing", _routing),
    ("queue", _queue),
    ("investigations", _investigations),
    ("llm", _llm),
    ("outbox", _outbox),
    ("approvals", _approvals),
)


def read_snapshot(sessions: Callable[[], AbstractContextManager[Session]], now: datetime) -> DbSnapshot:
    """Read every section, each in its own short session; a section whose table is missing
    or broken is named in `errors` instead of failing the scrape."""
    snap = DbSnapshot()
    for name, reader in READERS:
        try:
            with sessions() as session:
                reader(session, snap, now)
        except Exception as exc:  # one broken table must not blank the whole scrape
            snap.errors[name] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    return snap
