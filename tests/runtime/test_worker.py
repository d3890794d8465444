"""The in-process worker pool that `rootward serve` embeds."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from rootward.runtime import execution
from rootward.runtime.fencing import check_fence, current_fence
from rootward.runtime.job_state import JobState
from rootward.runtime.pipeline import Step
from rootward.runtime.queue import claim, enqueue_investigation
from rootward.runtime.worker import WorkerPool
from rootward.store.audit import AuditRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.jobs import Checkpoint, Job, WorkerHeartbeat, utcnow
from tests.runtime.conftest import runtime_settings
from tests.runtime.scratch import mark, scratch_pipeline


def _wait_for(predicate: Any, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def _statuses(factory: sessionmaker[Session]) -> list[str]:
    with factory() as session:
        return list(session.scalars(select(Job.status)))


def test_pool_runs_queued_jobs_to_done_and_keeps_its_heartbeat(
    migrated_db_url: str, session_factory: sessionmaker[Session]
) -> None:
    with session_factory() as session:
        for n in range(8):
            enqueue_investigation(session, f"g{n}", n % 3, "L1")
        session.commit()
    pipeline = scratch_pipeline([Step("one", mark(one=1)), Step("two", mark(two=2))])
    pool = WorkerPool(runtime_settings(migrated_db_url), session_factory, pipeline=pipeline, concurrency=2)
    pool.start()
    try:
        assert _wait_for(lambda: _statuses(session_factory) == ["done"] * 8, 20)
        with session_factory() as session:
            beat = session.get_one(WorkerHeartbeat, pool.worker_id)
            assert beat.slots == 2
    finally:
        pool.stop()
    assert pool.outcomes["done"] == 8
    with session_factory() as session:
        assert session.get(WorkerHeartbeat, pool.worker_id) is None  # a clean stop leaves no ghost


def test_pool_with_no_slots_still_expires_overdue_jobs(
    migrated_db_url: str, session_factory: sessionmaker[Session]
) -> None:
    with session_factory() as session:
        job_id = enqueue_investigation(session, "g", 1, "L2", now=utcnow() - timedelta(seconds=120))
        session.commit()
    pool = WorkerPool(runtime_settings(migrated_db_url, queue_ttl_s=60), session_factory, concurrency=0)
    pool.start()
    pool.stop()
    with session_factory() as session:
        assert session.get_one(Job, job_id).status == "expired"


def test_stopping_pool_finishes_the_current_step_and_hands_the_job_back(
    migrated_db_url: str, session_factory: sessionmaker[Session]
) -> None:
    in_step = threading.Event()

    def slow(state: JobState) -> JobState:
        in_step.set()
        time.sleep(0.3)
        return state.model_copy(update={"slow": True})

    with session_factory() as session:
        job_id = enqueue_investigation(session, "g", 1, "L2")
        session.commit()
    pipeline = scratch_pipeline([Step("slow", slow), Step("never", mark(never=True))])
    pool = WorkerPool(runtime_settings(migrated_db_url), session_factory, pipeline=pipeline, concurrency=1)
    pool.start()
    assert in_step.wait(10)
    pool.stop()
    with session_factory() as session:
        job = session.get_one(Job, job_id)
        assert (job.status, job.next_step, job.lease_owner) == ("queued", 1, None)


def test_job_of_a_slot_that_hit_a_database_error_is_not_renewed_and_gets_resumed(
    migrated_db_url: str, session_factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    real_save = execution.save_checkpoint
    failures: list[int] = []

    def flaky_save(*args: Any, **kwargs: Any) -> None:
        if not failures:
            failures.append(1)
            raise OperationalError("INSERT ...", {}, Exception("connection reset"))
        real_save(*args, **kwargs)

    monkeypatch.setattr(execution, "save_checkpoint", flaky_save)
    with session_factory() as session:
        job_id = enqueue_investigation(session, "g", 1, "L2")
        session.commit()
    pipeline = scratch_pipeline([Step("only", mark(only=True))])
    settings = runtime_settings(migrated_db_url, lease_s=1, heartbeat_s=0.1)
    pool = WorkerPool(settings, session_factory, pipeline=pipeline, concurrency=1)
    pool.start()
    try:
        assert _wait_for(lambda: _statuses(session_factory) == ["done"], 20)
    finally:
        pool.stop()
    assert pool.outcomes["error"] == 1 and pool.outcomes["done"] == 1
    with session_factory() as session:
        assert session.get_one(Job, job_id).attempts == 2  # the lease lapsed, then the job was claimed again


def test_concurrency_cap_holds_across_pools_with_separate_connections(
    migrated_db_url: str, session_factory: sessionmaker[Session]
) -> None:
    lock = threading.Lock()
    running = {"now": 0, "max": 0}

    def busy(state: JobState) -> JobState:
        with lock:
            running["now"] += 1
            running["max"] = max(running["max"], running["now"])
        time.sleep(0.05)
        with lock:
            running["now"] -= 1
        return state

    with session_factory() as session:
        for n in range(12):
            enqueue_investigation(session, f"g{n}", 1, "L2")
        session.commit()
    settings = runtime_settings(migrated_db_url, max_concurrent=2, poll_s=0.01)
    pipeline = scratch_pipeline([Step("busy", busy)])
    engines = [make_engine(migrated_db_url) for _ in range(2)]  # two "processes", two connection pools
    pools = [WorkerPool(settings, make_session_factory(e), pipeline=pipeline, concurrency=3) for e in engines]
    for pool in pools:
        pool.start()
    try:
        assert _wait_for(lambda: _statuses(session_factory) == ["done"] * 12, 30)
    finally:
        for pool in pools:
            pool.stop()
        for e in engines:
            e.dispose()
    assert 1 <= running["max"] <= 2  # six slots, but never more than the cap at once


def test_step_longer_than_the_lease_completes_without_a_takeover(
    migrated_db_url: str, session_factory: sessionmaker[Session]
) -> None:
    def long_step(state: JobState) -> JobState:
        time.sleep(2.5)  # 2.5 leases: only the heartbeat's renewals keep the job
        return state.model_copy(update={"long": True})

    with session_factory() as session:
        job_id = enqueue_investigation(session, "g", 1, "L2")
        session.commit()
    settings = runtime_settings(migrated_db_url, lease_s=1, heartbeat_s=0.1)
    pipeline = scratch_pipeline([Step("long", long_step), Step("after", mark(after=True))])
    holder = WorkerPool(settings, session_factory, pipeline=pipeline, concurrency=1)
    # A second pool polls all along: it would take the job over the moment its lease ran out.
    rival = WorkerPool(settings, session_factory, pipeline=pipeline, concurrency=1)
    holder.start()
    assert _wait_for(lambda: _statuses(session_factory) == ["running"], 10)
    rival.start()
    try:
        assert _wait_for(lambda: _statuses(session_factory) == ["done"], 20)
    finally:
        holder.stop()
        rival.stop()
    assert holder.outcomes == {"done": 1} and not rival.outcomes
    with session_factory() as session:
        job = session.get_one(Job, job_id)
        assert (job.attempts, job.error) == (1, None)
        workers = session.scalars(select(Checkpoint.worker_id).where(Checkpoint.job_id == job_id)).all()
        assert workers == [holder.worker_id, holder.worker_id]
        kinds = session.scalars(select(AuditRow.kind).where(AuditRow.subject == job_id)).all()
        assert "job.resumed" not in kinds


def test_pool_renews_exactly_the_leases_its_slots_hold(
    migrated_db_url: str, session_factory: sessionmaker[Session]
) -> None:
    in_step = threading.Event()
    release = threading.Event()

    def waiting(state: JobState) -> JobState:
        in_step.set()
        release.wait(10)
        return state

    with session_factory() as session:
        job_id = enqueue_investigation(session, "g", 1, "L2")
        session.commit()
    pool = WorkerPool(
        runtime_settings(migrated_db_url),
        session_factory,
        pipeline=scratch_pipeline([Step("wait", waiting)]),
        concurrency=1,
    )
    pool.start()
    try:
        assert in_step.wait(10)
        assert [lease.job_id for lease in pool.held_leases()] == [job_id]
        release.set()
        assert _wait_for(lambda: _statuses(session_factory) == ["done"], 10)
        assert _wait_for(lambda: pool.held_leases() == [], 5)  # a finished job is no longer renewed
    finally:
        release.set()
        pool.stop()


def test_fenced_off_pool_stops_its_step_and_writes_nothing(
    migrated_db_url: str, session_factory: sessionmaker[Session]
) -> None:
    in_step = threading.Event()
    stopped: dict[str, Any] = {}

    def long_step(state: JobState) -> JobState:
        fence = current_fence()
        assert fence is not None
        in_step.set()
        started = time.monotonic()
        woken = fence.wait(30)
        stopped.update(woken=woken, after_s=time.monotonic() - started, reason=fence.reason)
        check_fence()
        stopped["went_on"] = True
        return state.model_copy(update={"long": True})

    with session_factory() as session:
        job_id = enqueue_investigation(session, "g", 1, "L2")
        session.commit()
    settings = runtime_settings(migrated_db_url, lease_s=1, heartbeat_s=0.1)
    pool = WorkerPool(settings, session_factory, pipeline=scratch_pipeline([Step("long", long_step)]), concurrency=1)
    pool.start()
    try:
        assert in_step.wait(10)
        with session_factory() as session:  # another worker takes the job over (as after a stall)
            rescuer = claim(session, "rescuer", 60, now=utcnow() + timedelta(seconds=5))
        assert rescuer is not None and rescuer.id == job_id
        assert _wait_for(lambda: pool.outcomes["lease_lost"] == 1, 10)
    finally:
        pool.stop()
    assert stopped["woken"] and stopped["after_s"] < 10 and "went_on" not in stopped
    assert "another worker took over" in stopped["reason"]
    with session_factory() as session:
        job = session.get_one(Job, job_id)
        assert (job.status, job.lease_owner, job.attempts, job.next_step) == ("running", "rescuer", 2, 0)
        assert session.scalars(select(Checkpoint).where(Checkpoint.job_id == job_id)).first() is None
