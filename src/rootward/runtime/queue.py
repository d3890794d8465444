"""The durable investigation queue: enqueue, claim under a lease, expire, heartbeat.

Jobs are rows (`store/jobs.py`), so the queue survives restarts and several
`rootward worker` processes can share one PostgreSQL. A claim is one short
write transaction:

1. queued jobs older than `queue_ttl_s` that never started are marked `expired`
   and audited (never dropped silently);
2. if `max_concurrent` jobs already hold live leases, nothing is claimed;
3. the best candidate is taken: a queued job, or a running job whose lease ran
   out (its worker died), by priority (P0 first) then FIFO.

On PostgreSQL the candidate row is locked with `FOR UPDATE SKIP LOCKED`, and a
transaction-scoped advisory lock serialises the few milliseconds of counting
and claiming, so the concurrency cap is exact across processes. On SQLite every
transaction of `store/db.py` engines is `BEGIN IMMEDIATE`: one writer at a time.

Every claim bumps `attempts`, the fencing token that every later write of the
worker must present (see `runtime/checkpoint.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, Executable, func, insert, or_, select, update
from sqlalchemy.orm import Session

from rootward.runtime.checkpoint import Lease
from rootward.store.audit import append_audit
from rootward.store.ids import new_id
from rootward.store.jobs import Job, WorkerHeartbeat, utcnow

log = logging.getLogger(__name__)

# A job whose worker died this many times is failed rather than handed out again.
MAX_ATTEMPTS = 5
# Key of the PostgreSQL advisory lock that serialises claims (any constant bigint).
CLAIM_LOCK_KEY = 0x726F6F7477617264  # "rootward"


def is_postgres_session(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def enqueue_investigation(
    session: Session, group_id: str, severity_rank: int, tier: str, *, now: datetime | None = None
) -> str:
    """Queue an investigation of `group_id`; the caller's transaction commits it.

    Called by the router inside the transaction that stores the alert, so an
    alert and its investigation are written together or not at all.
    """
    now = now or utcnow()
    job_id = new_id()
    # A Core insert, not an ORM add: the router enqueues inside its batched intake transaction.
    session.execute(
        insert(Job).values(
            id=job_id,
            group_id=group_id,
            status="queued",
            priority=severity_rank,
            tier=tier,
            enqueued_at=now,
            attempts=0,
            next_step=0,
        )
    )
    append_audit(session, "job.enqueued", job_id, {"group_id": group_id, "priority": severity_rank, "tier": tier})
    return job_id


def expire_overdue(session: Session, queue_ttl_s: float, *, now: datetime | None = None) -> list[str]:
    """Mark queued jobs that never started within the TTL as `expired`; returns their ids.

    Runs inside the caller's transaction. Each expiry is audited and logged as a
    warning, so a backlog that outgrew the workers is visible, not lost.
    """
    now = now or utcnow()
    cutoff = now - timedelta(seconds=queue_ttl_s)
    query = (
        select(Job)
        .where(Job.status == "queued", Job.started_at.is_(None), Job.enqueued_at < cutoff)
        .order_by(Job.enqueued_at)
    )
    if is_postgres_session(session):
        query = query.with_for_update(skip_locked=True)
    expired: list[str] = []
    for job in session.scalars(query):
        waited = (now - job.enqueued_at).total_seconds()
        job.status = "expired"
        job.finished_at = now
        job.error = f"not started within the queue TTL of {queue_ttl_s:g} s (waited {waited:.0f} s)"
        append_audit(
            session,
            "job.expired",
            job.id,
            {"group_id": job.group_id, "waited_s": round(waited, 3), "queue_ttl_s": queue_ttl_s},
        )
        log.warning("investigation %s of group %s expired: %s", job.id, job.group_id, job.error)
        expired.append(job.id)
    session.flush()
    return expired


def running_count(session: Session, *, now: datetime | None = None) -> int:
    """Jobs that hold a live lease right now, across all workers."""
    now = now or utcnow()
    return (
        session.scalar(select(func.count()).select_from(Job).where(Job.status == "running", Job.lease_expires_at > now))
        or 0
    )


def claim(
    session: Session,
    worker_id: str,
    lease_s: float,
    *,
    max_concurrent: int = 10,
    queue_ttl_s: float = 600,
    max_attempts: int = MAX_ATTEMPTS,
    now: datetime | None = None,
) -> Job | None:
    """Take the next job under a lease for `worker_id`, or None; commits its own transaction.

    Call it on a session without pending work: the claim must be a short
    transaction of its own so the locks it takes are released at once.
    """
    now = now or utcnow()
    postgres = is_postgres_session(session)
    if postgres:
        session.execute(select(func.pg_advisory_xact_lock(CLAIM_LOCK_KEY)))
    expire_overdue(session, queue_ttl_s, now=now)
    if running_count(session, now=now) >= max_concurrent:
        session.commit()
        return None
    candidates = (
        select(Job)
        .where(
            or_(
                Job.status == "queued",
                (Job.status == "running") & (Job.lease_expires_at <= now),
            )
        )
        .order_by(Job.priority, Job.enqueued_at, Job.id)
        .limit(1)
    )
    if postgres:
        candidates = candidates.with_for_update(skip_locked=True)
    while True:
        job = session.scalars(candidates).first()
        if job is None:
            session.commit()
            return None
        if job.status == "running" and job.attempts >= max_attempts:
            _give_up(session, job, max_attempts, now)
            continue
        resumed = job.started_at is not None
        previous_owner = job.lease_owner
        job.status = "running"
        job.lease_owner = worker_id
        job.lease_expires_at = now + timedelta(seconds=lease_s)
        job.started_at = job.started_at or now
        job.attempts += 1
        data: dict[str, object] = {
            "worker_id": worker_id,
            "attempt": job.attempts,
            "resume_from_step": job.next_step,
        }
        if previous_owner and previous_owner != worker_id:
            data["previous_owner"] = previous_owner
        append_audit(session, "job.resumed" if resumed else "job.started", job.id, data)
        session.commit()
        return job


def _give_up(session: Session, job: Job, max_attempts: int, now: datetime) -> None:
    job.status = "failed"
    job.finished_at = now
    job.error = f"abandoned: its worker lost the lease {job.attempts} times (limit {max_attempts})"
    job.lease_owner = None
    job.lease_expires_at = None
    append_audit(session, "job.failed", job.id, {"error": job.error, "attempts": job.attempts})
    session.flush()


def heartbeat(
    session: Session,
    worker_id: str,
    *,
    host: str,
    pid: int,
    slots: int,
    lease_s: float,
    started_at: datetime,
    leases: Collection[Lease] = (),
    now: datetime | None = None,
) -> set[Lease]:
    """Record that `worker_id` is alive and extend `leases`; returns the ones extended. Commits.

    The caller passes the lease of every job its slots hold, never "every job
    of this owner": a job whose slot crashed must lose its lease so another
    worker resumes it. A lease that already ran out is not revived either:
    another worker may be claiming that job at this moment. A lease missing
    from the result is gone: its holder is fenced off and must stop the job.
    """
    now = now or utcnow()
    renewed: set[Lease] = set()
    for lease in leases:
        matched = _rowcount(
            session,
            update(Job)
            .where(
                Job.id == lease.job_id,
                Job.status == "running",
                Job.lease_owner == worker_id,
                Job.attempts == lease.attempt,
                Job.lease_expires_at > now,
            )
            .values(lease_expires_at=now + timedelta(seconds=lease_s))
            .execution_options(synchronize_session=False),
        )
        if matched:
            renewed.add(lease)
    beat = session.get(WorkerHeartbeat, worker_id)
    if beat is None:
        session.add(
            WorkerHeartbeat(worker_id=worker_id, host=host, pid=pid, slots=slots, started_at=started_at, last_beat=now)
        )
    else:
        beat.last_beat = now
        beat.slots = slots
    session.commit()
    return renewed


def _rowcount(session: Session, statement: Executable) -> int:
    result = session.execute(statement)
    return int(cast(CursorResult[Any], result).rowcount or 0)


def forget_worker(session: Session, worker_id: str) -> None:
    """Remove the heartbeat row of a worker that stopped cleanly. Commits."""
    beat = session.get(WorkerHeartbeat, worker_id)
    if beat is not None:
        session.delete(beat)
    session.commit()


def live_workers(session: Session, within_s: float, *, now: datetime | None = None) -> list[WorkerHeartbeat]:
    """Workers whose last heartbeat is at most `within_s` old (for readiness checks)."""
    now = now or utcnow()
    cutoff = now - timedelta(seconds=within_s)
    return list(session.scalars(select(WorkerHeartbeat).where(WorkerHeartbeat.last_beat >= cutoff)))
