"""The queue: priority, FIFO, concurrency cap, TTL expiry, lease reclaim, heartbeats."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.runtime.checkpoint import Lease
from rootward.runtime.queue import claim, enqueue_investigation, expire_overdue, heartbeat, live_workers
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.jobs import Job, utcnow


def _enqueue(factory: sessionmaker[Session], group: str, rank: int, at_offset_s: float = 0) -> str:
    with factory() as session:
        job_id = enqueue_investigation(session, group, rank, "L2", now=utcnow() + timedelta(seconds=at_offset_s))
        session.commit()
    return job_id


def _claim(factory: sessionmaker[Session], worker: str = "w1", **kwargs: object) -> Job | None:
    with factory() as session:
        return claim(session, worker, 30, **kwargs)  # type: ignore[arg-type]


def test_claim_takes_most_severe_first_then_oldest(session_factory: sessionmaker[Session]) -> None:
    p2_old = _enqueue(session_factory, "g-p2-old", 2, -30)
    p1_new = _enqueue(session_factory, "g-p1-new", 1, -1)
    p1_old = _enqueue(session_factory, "g-p1-old", 1, -20)
    p0 = _enqueue(session_factory, "g-p0", 0, 0)
    order = [_claim(session_factory) for _ in range(4)]
    assert [job.id for job in order if job] == [p0, p1_old, p1_new, p2_old]
    assert _claim(session_factory) is None


def test_claim_stops_at_concurrency_cap_and_resumes_when_a_slot_frees(
    session_factory: sessionmaker[Session],
) -> None:
    for n in range(3):
        _enqueue(session_factory, f"g{n}", 1, -n)
    first = _claim(session_factory, "w1", max_concurrent=2)
    second = _claim(session_factory, "w2", max_concurrent=2)
    assert first and second
    assert _claim(session_factory, "w3", max_concurrent=2) is None
    with session_factory() as session:
        session.get_one(Job, first.id).status = "done"
        session.commit()
    assert _claim(session_factory, "w3", max_concurrent=2) is not None


def test_queued_job_past_ttl_is_expired_audited_and_never_claimed(
    session_factory: sessionmaker[Session],
) -> None:
    stale = _enqueue(session_factory, "g-stale", 0, -700)
    fresh = _enqueue(session_factory, "g-fresh", 3, -5)
    claimed = _claim(session_factory, queue_ttl_s=600)
    assert claimed is not None and claimed.id == fresh
    with session_factory() as session:
        job = session.get_one(Job, stale)
        assert job.status == "expired"
        assert job.finished_at is not None
        assert job.error and "queue TTL of 600 s" in job.error
        kinds = session.scalars(select(AuditRow.kind).where(AuditRow.subject == stale).order_by(AuditRow.id)).all()
        assert kinds == ["job.enqueued", "job.expired"]
        assert verify_chain(session).ok


def test_started_job_is_not_expired_by_ttl(session_factory: sessionmaker[Session]) -> None:
    job_id = _enqueue(session_factory, "g", 1, -700)
    with session_factory() as session:
        assert claim(session, "w1", 30, queue_ttl_s=1000) is not None
    with session_factory() as session:
        assert expire_overdue(session, 1, now=utcnow() + timedelta(hours=1)) == []
        session.commit()
        assert session.get_one(Job, job_id).status == "running"


def test_expired_lease_is_reclaimed_by_another_worker_with_a_new_attempt(
    session_factory: sessionmaker[Session],
) -> None:
    job_id = _enqueue(session_factory, "g", 1)
    with session_factory() as session:
        first = claim(session, "dead-worker", 5)
    assert first is not None and first.attempts == 1
    assert _claim(session_factory, "w2") is None  # lease still live
    with session_factory() as session:
        again = claim(session, "w2", 5, now=utcnow() + timedelta(seconds=6))
    assert again is not None and again.id == job_id
    assert again.lease_owner == "w2" and again.attempts == 2
    with session_factory() as session:
        resumed = session.scalars(select(AuditRow).where(AuditRow.kind == "job.resumed")).one()
        assert '"previous_owner":"dead-worker"' in resumed.data


def test_job_whose_workers_keep_dying_is_failed_after_max_attempts(
    session_factory: sessionmaker[Session],
) -> None:
    job_id = _enqueue(session_factory, "g", 1)
    now = utcnow()
    for attempt in range(3):
        with session_factory() as session:
            got = claim(session, f"w{attempt}", 1, max_attempts=3, now=now + timedelta(seconds=2 * attempt))
        assert got is not None
    with session_factory() as session:
        assert claim(session, "w9", 1, max_attempts=3, now=now + timedelta(seconds=10)) is None
    with session_factory() as session:
        job = session.get_one(Job, job_id)
        assert job.status == "failed" and job.error and "3 times" in job.error


def test_heartbeat_extends_only_the_given_leases_of_its_own_worker(
    session_factory: sessionmaker[Session],
) -> None:
    for n in range(3):
        _enqueue(session_factory, f"g{n}", 1)
    now = utcnow()
    with session_factory() as session:
        working = claim(session, "w1", 10, now=now)
    with session_factory() as session:
        crashed_slot = claim(session, "w1", 10, now=now)
    with session_factory() as session:
        other = claim(session, "w2", 10, now=now)
    assert working and crashed_slot and other
    with session_factory() as session:
        renewed = heartbeat(
            session,
            "w1",
            host="h",
            pid=1,
            slots=2,
            lease_s=60,
            started_at=now,
            leases=[Lease.of(working), Lease.of(other)],  # w2's lease is not w1's to renew
            now=now + timedelta(seconds=5),
        )
    assert renewed == {Lease.of(working)}
    with session_factory() as session:
        assert session.get_one(Job, working.id).lease_expires_at == now + timedelta(seconds=65)
        assert session.get_one(Job, crashed_slot.id).lease_expires_at == now + timedelta(seconds=10)
        assert session.get_one(Job, other.id).lease_expires_at == now + timedelta(seconds=10)
        assert [w.worker_id for w in live_workers(session, 30)] == ["w1"]


def test_heartbeat_does_not_revive_a_lease_that_ran_out(session_factory: sessionmaker[Session]) -> None:
    _enqueue(session_factory, "g", 1)
    now = utcnow()
    with session_factory() as session:
        job = claim(session, "w1", 1, now=now)
    assert job is not None
    with session_factory() as session:
        later = now + timedelta(seconds=2)
        leases = [Lease.of(job)]
        assert (
            heartbeat(session, "w1", host="h", pid=1, slots=1, lease_s=30, started_at=now, leases=leases, now=later)
            == set()
        )
