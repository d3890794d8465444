"""Checkpoints: the state after each completed step, written only by the lease holder.

A step's completion and its resulting state are one transaction: the job row's
`next_step` advances and the checkpoint row is inserted together, or neither
is. That transaction starts with a guarded UPDATE of the job row naming the
worker, the attempt (the fencing token from the claim) and the step it
completed; if the lease ran out or passed to another worker, the UPDATE matches
no row and nothing is written (`LeaseLost`). A resumed worker therefore starts
at exactly the first step no one has checkpointed, so no checkpointed step
ever runs twice.

A checkpoint is the step's `JobState` as JSON, with its `schema_version`; the
pipeline reads it back with `JobState.load`, which also migrates the
unversioned dict-shaped checkpoints of earlier versions (or fails the job with
a message that says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from rootward.runtime.job_state import JobState
from rootward.store.audit import append_audit
from rootward.store.jobs import Checkpoint, Job, utcnow


class LeaseLost(RuntimeError):
    """The worker no longer holds the job's lease: it must stop without writing."""


@dataclass(frozen=True)
class Lease:
    """What a worker holds after a claim; every write for the job presents it."""

    job_id: str
    owner: str
    attempt: int

    @classmethod
    def of(cls, job: Job) -> Lease:
        if job.lease_owner is None:
            raise ValueError(f"job {job.id} is not leased")
        return cls(job.id, job.lease_owner, job.attempts)


@dataclass(frozen=True)
class ResumePoint:
    next_step: int
    state: dict[str, Any] | None  # the checkpoint's JSON (read with `Pipeline.load_state`); None: none yet
    step_name: str | None = None


def resume_point(session: Session, job_id: str) -> ResumePoint:
    """Where a worker picks the job up: after its last checkpoint, with that state."""
    last = session.scalars(
        select(Checkpoint).where(Checkpoint.job_id == job_id).order_by(Checkpoint.step_index.desc()).limit(1)
    ).first()
    if last is None:
        return ResumePoint(0, None)
    return ResumePoint(last.step_index + 1, dict(last.state), last.step_name)


def _guard(session: Session, lease: Lease, now: datetime, *, step_index: int | None = None, **values: Any) -> None:
    """Apply `values` to the job row only if `lease` is still live; else raise LeaseLost."""
    conditions = [
        Job.id == lease.job_id,
        Job.status == "running",
        Job.lease_owner == lease.owner,
        Job.attempts == lease.attempt,
        Job.lease_expires_at > now,
    ]
    if step_index is not None:
        conditions.append(Job.next_step == step_index)
    result = session.execute(
        update(Job).where(*conditions).values(**values).execution_options(synchronize_session=False)
    )
    matched = cast(CursorResult[Any], result).rowcount
    if not matched:
        session.rollback()
        raise LeaseLost(f"job {lease.job_id}: lease of {lease.owner} (attempt {lease.attempt}) is gone")


def save_checkpoint(
    session: Session,
    lease: Lease,
    step_index: int,
    step_name: str,
    state: JobState,
    *,
    started_at: datetime,
    lease_s: float,
    last: bool = False,
    now: datetime | None = None,
) -> None:
    """Record step `step_index` as done with its resulting `state`; commits, or raises LeaseLost.

    Completing a step also renews the lease: progress is proof of life. With
    `last`, the same transaction closes the job as `done`, so there is no moment
    at which every step is checkpointed but the job still looks unfinished.

    Steps are recorded in `investigation_checkpoints` (one row per step, never
    updated), not in the audit chain: only job transitions are audited there,
    which keeps the chain's global lock out of the per-step path.
    """
    now = now or utcnow()
    values: dict[str, Any] = {
        "next_step": step_index + 1,
        "lease_expires_at": now + timedelta(seconds=lease_s),
    }
    if last:
        values.update(status="done", finished_at=now, lease_owner=None, lease_expires_at=None)
    _guard(session, lease, now, step_index=step_index, **values)
    session.add(
        Checkpoint(
            job_id=lease.job_id,
            step_index=step_index,
            step_name=step_name,
            state=state.model_dump(mode="json"),
            worker_id=lease.owner,
            attempt=lease.attempt,
            started_at=started_at,
            created_at=now,
        )
    )
    if last:
        append_audit(
            session,
            "job.done",
            lease.job_id,
            {"worker_id": lease.owner, "attempt": lease.attempt, "steps": step_index + 1},
        )
    session.commit()


def finish_job(
    session: Session, lease: Lease, status: str, *, error: str | None = None, now: datetime | None = None
) -> None:
    """Close the job as `done` or `failed`; commits, or raises LeaseLost."""
    if status not in ("done", "failed"):
        raise ValueError(f"a worker finishes a job as done or failed, not {status!r}")
    now = now or utcnow()
    _guard(
        session,
        lease,
        now,
        status=status,
        finished_at=now,
        error=error,
        lease_owner=None,
        lease_expires_at=None,
    )
    data: dict[str, Any] = {"worker_id": lease.owner, "attempt": lease.attempt}
    if error:
        data["error"] = error
    append_audit(session, f"job.{status}", lease.job_id, data)
    session.commit()


def release_job(session: Session, lease: Lease, *, reason: str, now: datetime | None = None) -> None:
    """Hand a started job back to the queue (graceful shutdown); commits, or raises LeaseLost.

    The job keeps its `started_at`, so the queue TTL no longer applies: it is
    resumed from its last checkpoint by the next free worker.
    """
    now = now or utcnow()
    _guard(session, lease, now, status="queued", lease_owner=None, lease_expires_at=None)
    append_audit(
        session,
        "job.released",
        lease.job_id,
        {"worker_id": lease.owner, "attempt": lease.attempt, "reason": reason},
    )
    session.commit()
