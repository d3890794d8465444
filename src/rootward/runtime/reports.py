"""Read-only views of the queue for the CLI and the web console.

Expired and failed jobs are listed like any other: the queue never hides a job
it did not finish.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from rootward.store.alerts import AlertGroupRow
from rootward.store.jobs import Checkpoint, Job, WorkerHeartbeat


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


@dataclass(frozen=True)
class JobSummary:
    id: str
    group_id: str
    status: str
    priority: int
    tier: str
    enqueued_at: str
    started_at: str | None
    finished_at: str | None
    steps_done: int
    attempts: int
    lease_owner: str | None
    error: str | None
    service: str | None = None  # of the alert group, when the job came from intake

    @classmethod
    def of(cls, job: Job, service: str | None = None) -> JobSummary:
        return cls(
            id=job.id,
            group_id=job.group_id,
            status=job.status,
            priority=job.priority,
            tier=job.tier,
            enqueued_at=job.enqueued_at.isoformat(),
            started_at=_iso(job.started_at),
            finished_at=_iso(job.finished_at),
            steps_done=job.next_step,
            attempts=job.attempts,
            lease_owner=job.lease_owner,
            error=job.error,
            service=service,
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class StepReport:
    index: int
    name: str
    status: str  # done | running | failed | pending
    started_at: str | None
    checkpointed_at: str | None
    duration_ms: int | None
    worker_id: str | None
    attempt: int | None


@dataclass(frozen=True)
class JobReport:
    job: JobSummary
    lease_expires_at: str | None
    steps: list[StepReport]
    state: dict[str, Any] | None  # the last checkpointed state

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def list_jobs(session: Session, *, status: str | None = None, limit: int = 50) -> list[JobSummary]:
    """Newest first; `status` filters (queued, running, done, failed, expired)."""
    query = (
        select(Job, AlertGroupRow.service)
        .outerjoin(AlertGroupRow, AlertGroupRow.id == Job.group_id)
        .order_by(Job.enqueued_at.desc(), Job.id.desc())
        .limit(limit)
    )
    if status:
        query = query.where(Job.status == status)
    return [JobSummary.of(job, service) for job, service in session.execute(query)]


def status_counts(session: Session) -> dict[str, int]:
    rows = session.execute(select(Job.status, func.count()).group_by(Job.status)).all()
    return {str(status): int(count) for status, count in rows}


def find_job(session: Session, job_id: str) -> Job | None:
    """By full id, or by a unique prefix of at least 6 characters (ids are long)."""
    job = session.get(Job, job_id)
    if job is not None or len(job_id) < 6:
        return job
    matches = session.scalars(select(Job).where(Job.id.startswith(job_id, autoescape=True)).limit(2)).all()
    return matches[0] if len(matches) == 1 else None


def job_report(session: Session, job: Job, step_names: tuple[str, ...]) -> JobReport:
    """The job and each pipeline step: checkpointed, running now, or still pending."""
    checkpoints = {
        cp.step_index: cp
        for cp in session.scalars(select(Checkpoint).where(Checkpoint.job_id == job.id).order_by(Checkpoint.step_index))
    }
    names = list(step_names)
    for index, done in checkpoints.items():  # steps of an older pipeline still show
        while len(names) <= index:
            names.append(f"step{len(names)}")
        names[index] = done.step_name
    steps = []
    for index, name in enumerate(names):
        cp = checkpoints.get(index)
        if cp is not None:
            steps.append(
                StepReport(
                    index=index,
                    name=name,
                    status="done",
                    started_at=cp.started_at.isoformat(),
                    checkpointed_at=cp.created_at.isoformat(),
                    duration_ms=int((cp.created_at - cp.started_at).total_seconds() * 1000),
                    worker_id=cp.worker_id,
                    attempt=cp.attempt,
                )
            )
        else:
            status = "pending"
            if index == job.next_step and job.status in ("running", "failed"):
                status = job.status
            steps.append(StepReport(index, name, status, None, None, None, None, None))
    last = checkpoints[max(checkpoints)] if checkpoints else None
    group = session.get(AlertGroupRow, job.group_id)
    return JobReport(
        job=JobSummary.of(job, group.service if group is not None else None),
        lease_expires_at=_iso(job.lease_expires_at),
        steps=steps,
        state=dict(last.state) if last is not None else None,
    )


def worker_rows(session: Session) -> list[WorkerHeartbeat]:
    return list(session.scalars(select(WorkerHeartbeat).order_by(WorkerHeartbeat.last_beat.desc())))
