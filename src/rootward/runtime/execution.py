"""Run one claimed job through the pipeline, checkpointing after every step.

A worker starts at the job's resume point (its last checkpoint, or the
beginning), runs each remaining step, and checkpoints the result under its
lease. Between steps it honours a stop request by handing the job back to the
queue. If the lease is lost (the worker stalled past `lease_s` and another one
took over), it stops at once without writing anything more: either a guarded
write finds the lease gone (`LeaseLost`), or the worker's heartbeat could not
renew the lease and raised the job's fence (`runtime/fencing.py`), which is
checked before and after every step and which a long step can check itself.

Each step sees the state exactly as a resumed worker would load it (a JSON
round trip of the previous step's typed output), so running straight through
and resuming after a crash cannot behave differently. A checkpoint this
version cannot read (`CheckpointUnreadable`) fails the job with that message.

For post-mortems and tests, `ROOTWARD_STEP_TRACE=<file>` appends one line per
step execution (`job_id step_index step_name worker_id attempt pid`) just
before the step runs; a line is written even if the process dies in the step.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Literal

from sqlalchemy.orm import Session

from rootward.observability.tracing import span
from rootward.runtime.checkpoint import (
    Lease,
    LeaseLost,
    finish_job,
    release_job,
    resume_point,
    save_checkpoint,
)
from rootward.runtime.fencing import JobFence, fenced_by
from rootward.runtime.job_state import CheckpointUnreadable
from rootward.runtime.pipeline import Pipeline
from rootward.store.jobs import Job, utcnow

log = logging.getLogger(__name__)

ENV_STEP_TRACE = "ROOTWARD_STEP_TRACE"

Outcome = Literal["done", "failed", "released", "lease_lost"]
SessionFactory = Callable[[], AbstractContextManager[Session]]


def _trace(job_id: str, index: int, name: str, lease: Lease) -> None:
    path = os.environ.get(ENV_STEP_TRACE)
    if not path:
        return
    line = f"{job_id}\t{index}\t{name}\t{lease.owner}\t{lease.attempt}\t{os.getpid()}\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def run_job(
    session_factory: SessionFactory,
    job: Job,
    pipeline: Pipeline,
    *,
    lease_s: float,
    stop: threading.Event | None = None,
    fence: JobFence | None = None,
) -> Outcome:
    """Drive `job` (just claimed) from its resume point to done, failed, released or lost.

    `fence` is the one the worker's heartbeat raises when it cannot renew this
    job's lease; without one (a direct call), only the guarded writes fence.
    """
    fence = fence or JobFence(Lease.of(job))
    with span("investigation", job_id=job.id, group_id=job.group_id, tier=job.tier, attempt=job.attempts) as current:
        outcome = _run_job(session_factory, job, pipeline, lease_s=lease_s, stop=stop, fence=fence)
        current.set_attribute("rootward.outcome", outcome)
        return outcome


def _run_job(
    session_factory: SessionFactory,
    job: Job,
    pipeline: Pipeline,
    *,
    lease_s: float,
    stop: threading.Event | None,
    fence: JobFence,
) -> Outcome:
    lease = fence.lease
    with session_factory() as session:
        point = resume_point(session, job.id)
        session.commit()
    try:
        where = f"job {job.id}: the checkpoint after step {point.step_name}"
        state = pipeline.initial_state(job) if point.state is None else pipeline.load_state(point.state, where=where)
    except CheckpointUnreadable as exc:
        log.warning("job %s failed: %s", job.id, exc)
        with session_factory() as session:
            finish_job(session, lease, "failed", error=str(exc))
        return "failed"
    if point.next_step:
        log.info("job %s: resuming at step %d of %d", job.id, point.next_step, len(pipeline))
    try:
        for index in range(point.next_step, len(pipeline)):
            fence.check()
            if stop is not None and stop.is_set():
                with session_factory() as session:
                    release_job(session, lease, reason=f"worker stopping before step {index}")
                return "released"
            step = pipeline.steps[index]
            started = utcnow()
            _trace(job.id, index, step.name, lease)
            try:
                with span(f"step {step.name}", job_id=job.id, step=step.name, step_index=index), fenced_by(fence):
                    produced = step.run(pipeline.round_trip(state))
                new_state = pipeline.round_trip(produced)
            except LeaseLost:
                raise
            except Exception as exc:  # a failing step fails the job, with the reason kept
                fence.check()  # a step that broke because its lease went away does not fail the job
                error = f"step {step.name}: {type(exc).__name__}: {exc}"
                log.warning("job %s failed: %s", job.id, error)
                with session_factory() as session:
                    finish_job(session, lease, "failed", error=error)
                return "failed"
            fence.check()  # the heartbeat lost the lease during the step: its result is not ours to write
            last = index == len(pipeline) - 1
            with session_factory() as session:
                save_checkpoint(
                    session,
                    lease,
                    index,
                    step.name,
                    new_state,
                    started_at=started,
                    lease_s=lease_s,
                    last=last,
                )
            state = new_state
        if point.next_step >= len(pipeline):  # every step was checkpointed before this claim
            with session_factory() as session:
                finish_job(session, lease, "done")
        return "done"
    except LeaseLost as exc:
        log.warning("job %s: stopping, %s", job.id, exc)
        return "lease_lost"
