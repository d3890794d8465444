"""Real `rootward worker` processes: crash recovery, exactly-once claims, TTL in the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from rootward.cli import app
from rootward.runtime.pipeline import DEFAULT_STEP_NAMES
from rootward.runtime.queue import claim, enqueue_investigation
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.jobs import Checkpoint, Job, utcnow

pytestmark = pytest.mark.integration

ROOTWARD = [str(Path(sys.executable).parent / "rootward")]


def _config(tmp_path: Path, db_url: str, **runtime: float) -> Path:
    values = {"lease_s": 1.5, "heartbeat_s": 0.3, "poll_s": 0.05, "workers": 1, "pipeline": "placeholder", **runtime}
    path = tmp_path / "rootward.yaml"
    path.write_text(yaml.safe_dump({"database": {"url": db_url}, "runtime": values, "data_dir": str(tmp_path)}))
    return path


@pytest.fixture
def start_worker(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []

    def start(config: Path, *args: str, step_s: float = 0.0) -> subprocess.Popen[bytes]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_")}
        env["ROOTWARD_STEP_TRACE"] = str(tmp_path / "steps.trace")
        env["ROOTWARD_PLACEHOLDER_STEP_S"] = str(step_s)
        log = open(tmp_path / f"worker-{len(procs)}.log", "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen([*ROOTWARD, "worker", "--config", str(config), *args], env=env, stdout=log, stderr=log)
        log.close()
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def _trace(tmp_path: Path) -> list[tuple[str, int, str, int]]:
    """(job_id, step_index, worker_id, pid) of every step execution, in order."""
    path = tmp_path / "steps.trace"
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        job_id, index, _name, worker, _attempt, pid = line.split("\t")
        rows.append((job_id, int(index), worker, int(pid)))
    return rows


def _wait_for(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def _job(factory: sessionmaker[Session], job_id: str) -> Job:
    with factory() as session:
        return session.get_one(Job, job_id)


def test_sigkilled_worker_job_is_finished_by_second_worker_from_its_checkpoint(
    clean_env: None,
    tmp_path: Path,
    migrated_db_url: str,
    session_factory: sessionmaker[Session],
    start_worker: Callable[..., subprocess.Popen[bytes]],
) -> None:
    config = _config(tmp_path, migrated_db_url)
    with session_factory() as session:
        job_id = enqueue_investigation(session, "group-kill", 1, "L2")
        session.commit()

    first = start_worker(config, step_s=0.5)
    _wait_for(lambda: _job(session_factory, job_id).next_step >= 2, 90, "two checkpoints by the first worker")
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    killed = _job(session_factory, job_id)
    assert killed.status == "running" and killed.next_step < len(DEFAULT_STEP_NAMES)
    checkpointed_before = killed.next_step

    second = start_worker(config, step_s=0.05)
    _wait_for(lambda: _job(session_factory, job_id).status == "done", 90, "the second worker to finish")
    second.send_signal(signal.SIGTERM)
    assert second.wait(timeout=15) == 0

    runs = Counter(index for jid, index, _w, _p in _trace(tmp_path) if jid == job_id)
    by_pid = {index: {p for jid, i, _w, p in _trace(tmp_path) if jid == job_id and i == index} for index in runs}
    for index in range(checkpointed_before):
        assert runs[index] == 1, f"checkpointed step {index} ran {runs[index]} times"
        assert by_pid[index] == {first.pid}
    for index in range(checkpointed_before, len(DEFAULT_STEP_NAMES)):
        assert second.pid in by_pid[index]
        # Only the step in flight at the kill may have started twice (once in the dead process).
        assert runs[index] == (2 if first.pid in by_pid[index] else 1)
        if first.pid in by_pid[index]:
            assert index == checkpointed_before
    with session_factory() as session:
        cps = session.scalars(select(Checkpoint).where(Checkpoint.job_id == job_id).order_by(Checkpoint.step_index))
        names = [(cp.step_index, cp.step_name) for cp in cps]
        assert names == list(enumerate(DEFAULT_STEP_NAMES))
        done = session.get_one(Job, job_id)
        assert done.attempts == 2 and done.status == "done"
        kinds = session.scalars(select(AuditRow.kind).where(AuditRow.subject == job_id)).all()
        assert kinds.count("job.resumed") == 1 and kinds[-1] == "job.done"
        assert verify_chain(session).ok

    shown = CliRunner().invoke(app, ["investigations", "show", job_id, "--config", str(config), "--json"])
    assert shown.exit_code == 0, shown.output
    report = json.loads(shown.output)
    assert report["job"]["status"] == "done"
    assert [s["status"] for s in report["steps"]] == ["done"] * len(DEFAULT_STEP_NAMES)
    assert all(s["checkpointed_at"] for s in report["steps"])


def test_two_workers_on_postgresql_claim_each_of_200_jobs_exactly_once(
    tmp_path: Path,
    migrated_db_url: str,
    session_factory: sessionmaker[Session],
    start_worker: Callable[..., subprocess.Popen[bytes]],
) -> None:
    if not migrated_db_url.startswith("postgresql"):
        pytest.skip("several worker processes share a queue on PostgreSQL")
    config = _config(tmp_path, migrated_db_url, lease_s=30, heartbeat_s=1)
    with session_factory() as session:
        ids = [enqueue_investigation(session, f"group-{n}", n % 4, "L2") for n in range(200)]
        session.commit()
    workers = [start_worker(config, "--concurrency", "2") for _ in range(2)]

    def all_done() -> bool:
        with session_factory() as session:
            return session.scalars(select(Job.id).where(Job.status != "done")).first() is None

    _wait_for(all_done, 120, "200 jobs to finish")
    for worker in workers:
        worker.send_signal(signal.SIGTERM)
    assert [worker.wait(timeout=15) for worker in workers] == [0, 0]

    trace = _trace(tmp_path)
    runs = Counter((jid, index) for jid, index, _w, _p in trace)
    assert set(runs) == {(jid, i) for jid in ids for i in range(len(DEFAULT_STEP_NAMES))}
    assert set(runs.values()) == {1}
    assert {pid for *_rest, pid in trace} == {w.pid for w in workers}  # both did work
    with session_factory() as session:
        assert set(session.scalars(select(Job.attempts))) == {1}
        started = session.scalars(select(AuditRow.subject).where(AuditRow.kind == "job.started")).all()
        assert sorted(started) == sorted(ids)
        assert verify_chain(session).ok


def test_steps_longer_than_the_lease_finish_in_one_worker_process_with_no_takeover(
    clean_env: None,
    tmp_path: Path,
    migrated_db_url: str,
    session_factory: sessionmaker[Session],
    start_worker: Callable[..., subprocess.Popen[bytes]],
) -> None:
    config = _config(tmp_path, migrated_db_url, lease_s=1, heartbeat_s=0.1)
    with session_factory() as session:
        job_id = enqueue_investigation(session, "group-long", 1, "L2")
        session.commit()
    holder = start_worker(config, step_s=1.5)  # every step outlives the lease
    _wait_for(lambda: bool(_trace(tmp_path)), 60, "the first worker to start a step")
    rival = start_worker(config, step_s=1.5)  # would take the job over the moment its lease lapsed
    _wait_for(lambda: _job(session_factory, job_id).status in ("done", "failed"), 120, "the job to finish")
    for worker in (holder, rival):
        worker.send_signal(signal.SIGTERM)
    assert [worker.wait(timeout=15) for worker in (holder, rival)] == [0, 0]

    done = _job(session_factory, job_id)
    assert (done.status, done.attempts, done.error) == ("done", 1, None)
    trace = [(index, pid) for jid, index, _w, pid in _trace(tmp_path) if jid == job_id]
    assert trace == [(index, holder.pid) for index in range(len(DEFAULT_STEP_NAMES))]  # each step once, one pid
    with session_factory() as session:
        kinds = session.scalars(select(AuditRow.kind).where(AuditRow.subject == job_id)).all()
        assert "job.resumed" not in kinds and kinds[-1] == "job.done"


def test_worker_process_fenced_off_mid_step_stops_the_step_without_writing(
    clean_env: None,
    tmp_path: Path,
    migrated_db_url: str,
    session_factory: sessionmaker[Session],
    start_worker: Callable[..., subprocess.Popen[bytes]],
) -> None:
    config = _config(tmp_path, migrated_db_url, lease_s=1, heartbeat_s=0.1)
    with session_factory() as session:
        job_id = enqueue_investigation(session, "group-fenced", 1, "L2")
        session.commit()
    worker = start_worker(config, step_s=60)  # a step that would run for a minute
    _wait_for(lambda: bool(_trace(tmp_path)), 60, "the worker to start its first step")
    claimed: list[Job] = []

    def rescue() -> bool:
        """Another worker takes the job over, as after a stall. Like a real one it polls: a claim
        skips a row the holder's heartbeat has locked at that instant (SKIP LOCKED) and tries again."""
        with session_factory() as session:
            job = claim(session, "rescuer", 120, now=utcnow() + timedelta(seconds=5))
        claimed.extend([job] if job is not None else [])
        return job is not None

    _wait_for(rescue, 10, "the rescuer to claim the job")
    assert claimed[0].id == job_id
    log = tmp_path / "worker-0.log"
    _wait_for(lambda: "fenced off" in log.read_text(), 15, "the worker to notice it was fenced off")
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=15) == 0
    assert "'lease_lost': 1" in log.read_text()  # the step ended, well before its minute was up

    job = _job(session_factory, job_id)
    assert (job.status, job.lease_owner, job.attempts, job.next_step) == ("running", "rescuer", 2, 0)
    with session_factory() as session:
        assert session.scalars(select(Checkpoint).where(Checkpoint.job_id == job_id)).first() is None
