"""Running a job: checkpoint per step, resume after a crash, lease fencing, failures, release."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.runtime.checkpoint import Lease, LeaseLost, resume_point, save_checkpoint
from rootward.runtime.execution import run_job
from rootward.runtime.fencing import JobFence
from rootward.runtime.job_state import JobState
from rootward.runtime.pipeline import Pipeline, Step
from rootward.runtime.queue import claim, enqueue_investigation
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.jobs import Checkpoint, Job, utcnow
from tests.runtime.scratch import mark, scratch_pipeline


class Crash(BaseException):
    """Stands in for the process dying mid-step: nothing in the runtime catches it."""


def _counting_pipeline(runs: list[str], names: list[str], crash_at: str | None = None) -> Pipeline:
    def make(name: str) -> Step:
        def run(state: JobState) -> JobState:
            runs.append(name)
            if name == crash_at and runs.count(name) == 1:
                raise Crash(name)
            return state.model_copy(update={"trail": [*getattr(state, "trail", []), name]})

        return Step(name, run)

    return scratch_pipeline([make(name) for name in names])


def _enqueue_and_claim(factory: sessionmaker[Session], worker: str = "w1", lease_s: float = 30) -> Job:
    with factory() as session:
        enqueue_investigation(session, "group-1", 1, "L2")
        session.commit()
    with factory() as session:
        job = claim(session, worker, lease_s)
    assert job is not None
    return job


def test_job_runs_every_step_once_and_checkpoints_each(session_factory: sessionmaker[Session]) -> None:
    runs: list[str] = []
    names = ["a", "b", "c"]
    job = _enqueue_and_claim(session_factory)
    assert run_job(session_factory, job, _counting_pipeline(runs, names), lease_s=30) == "done"
    assert runs == names
    with session_factory() as session:
        done = session.get_one(Job, job.id)
        assert done.status == "done" and done.next_step == 3 and done.lease_owner is None
        cps = session.scalars(select(Checkpoint).where(Checkpoint.job_id == job.id).order_by(Checkpoint.step_index))
        assert [(cp.step_index, cp.step_name, cp.state["trail"]) for cp in cps] == [
            (0, "a", ["a"]),
            (1, "b", ["a", "b"]),
            (2, "c", ["a", "b", "c"]),
        ]
        kinds = session.scalars(select(AuditRow.kind).where(AuditRow.subject == job.id).order_by(AuditRow.id)).all()
        assert kinds == ["job.enqueued", "job.started", "job.done"]  # steps live in the checkpoint table
        assert verify_chain(session).ok


def test_crashed_job_resumes_after_last_checkpoint_without_rerunning_done_steps(
    session_factory: sessionmaker[Session],
) -> None:
    runs: list[str] = []
    names = ["a", "b", "c", "d"]
    pipeline = _counting_pipeline(runs, names, crash_at="c")
    job = _enqueue_and_claim(session_factory, "doomed", lease_s=1)
    with pytest.raises(Crash):
        run_job(session_factory, job, pipeline, lease_s=1)
    with session_factory() as session:
        assert resume_point(session, job.id).next_step == 2
        again = claim(session, "rescuer", 30, now=utcnow() + timedelta(seconds=2))
    assert again is not None and again.id == job.id
    assert run_job(session_factory, again, pipeline, lease_s=30) == "done"
    assert runs == ["a", "b", "c", "c", "d"]  # only the step in flight at the crash ran again
    with session_factory() as session:
        cps = session.scalars(select(Checkpoint).where(Checkpoint.job_id == job.id).order_by(Checkpoint.step_index))
        assert [(cp.step_name, cp.worker_id) for cp in cps] == [
            ("a", "doomed"),
            ("b", "doomed"),
            ("c", "rescuer"),
            ("d", "rescuer"),
        ]
        final = session.scalars(select(Checkpoint).where(Checkpoint.job_id == job.id, Checkpoint.step_index == 3))
        assert final.one().state["trail"] == names


def test_worker_that_lost_its_lease_cannot_write_a_checkpoint(session_factory: sessionmaker[Session]) -> None:
    job = _enqueue_and_claim(session_factory, "slow", lease_s=1)
    stale = Lease.of(job)
    with session_factory() as session:
        taken = claim(session, "fast", 30, now=utcnow() + timedelta(seconds=2))
    assert taken is not None and taken.attempts == 2
    with session_factory() as session, pytest.raises(LeaseLost):
        save_checkpoint(session, stale, 0, "a", JobState.of(job), started_at=utcnow(), lease_s=30)
    with session_factory() as session:
        assert session.scalars(select(Checkpoint)).all() == []
        assert session.get_one(Job, job.id).next_step == 0


def test_same_owner_with_an_older_attempt_is_fenced_off(session_factory: sessionmaker[Session]) -> None:
    job = _enqueue_and_claim(session_factory, "pool-1", lease_s=1)
    old = Lease.of(job)
    with session_factory() as session:
        assert claim(session, "pool-1", 30, now=utcnow() + timedelta(seconds=2)) is not None
    with session_factory() as session, pytest.raises(LeaseLost):
        save_checkpoint(session, old, 0, "a", JobState.of(job), started_at=utcnow(), lease_s=30)


def test_failing_step_fails_the_job_with_the_step_and_reason(session_factory: sessionmaker[Session]) -> None:
    def boom(state: JobState) -> JobState:
        raise RuntimeError("prometheus said no")

    job = _enqueue_and_claim(session_factory)
    pipeline = scratch_pipeline([Step("ok", mark(ok=True)), Step("boom", boom)])
    assert run_job(session_factory, job, pipeline, lease_s=30) == "failed"
    with session_factory() as session:
        failed = session.get_one(Job, job.id)
        assert failed.status == "failed"
        assert failed.error == "step boom: RuntimeError: prometheus said no"
        assert failed.next_step == 1


def test_step_returning_non_json_state_fails_the_job(session_factory: sessionmaker[Session]) -> None:
    job = _enqueue_and_claim(session_factory)
    pipeline = scratch_pipeline([Step("bad", mark(when=object()))])
    assert run_job(session_factory, job, pipeline, lease_s=30) == "failed"
    with session_factory() as session:
        error = session.get_one(Job, job.id).error
        assert error is not None and error.startswith("step bad: TypeError")


def test_stop_request_hands_the_job_back_to_the_queue_between_steps(
    session_factory: sessionmaker[Session],
) -> None:
    stop = threading.Event()

    def first(state: JobState) -> JobState:
        stop.set()
        return state.model_copy(update={"first": True})

    job = _enqueue_and_claim(session_factory)
    pipeline = scratch_pipeline([Step("first", first), Step("second", mark(second=True))])
    assert run_job(session_factory, job, pipeline, lease_s=30, stop=stop) == "released"
    with session_factory() as session:
        back = session.get_one(Job, job.id)
        assert (back.status, back.next_step, back.lease_owner) == ("queued", 1, None)
        again = claim(session, "w2", 30, queue_ttl_s=0.001)  # started jobs are exempt from the TTL
    assert again is not None and again.id == job.id
    assert run_job(session_factory, again, pipeline, lease_s=30) == "done"


def test_step_result_is_not_checkpointed_once_the_heartbeat_raised_the_fence(
    session_factory: sessionmaker[Session],
) -> None:
    job = _enqueue_and_claim(session_factory)
    fence = JobFence(Lease.of(job))
    ran: list[str] = []

    def lost_during_step(state: JobState) -> JobState:
        ran.append("a")
        fence.raise_fence("renewal matched no row")  # what the heartbeat thread does meanwhile
        return state.model_copy(update={"a": True})

    def never(state: JobState) -> JobState:
        ran.append("b")
        return state

    pipeline = scratch_pipeline([Step("a", lost_during_step), Step("b", never)])
    assert run_job(session_factory, job, pipeline, lease_s=30, fence=fence) == "lease_lost"
    assert ran == ["a"]
    with session_factory() as session:
        assert session.scalars(select(Checkpoint).where(Checkpoint.job_id == job.id)).first() is None
        assert session.get_one(Job, job.id).next_step == 0


def test_step_that_breaks_after_its_lease_is_fenced_does_not_fail_the_job(
    session_factory: sessionmaker[Session],
) -> None:
    job = _enqueue_and_claim(session_factory)
    fence = JobFence(Lease.of(job))

    def breaks(state: JobState) -> JobState:
        fence.raise_fence("another worker took over")
        raise ConnectionError("the step's data source hung up")

    assert run_job(session_factory, job, scratch_pipeline([Step("a", breaks)]), lease_s=30, fence=fence) == "lease_lost"
    with session_factory() as session:
        assert session.get_one(Job, job.id).status == "running"  # left to whoever holds it now
