"""Scale-out on PostgreSQL: one API process (no workers) and two `rootward worker` processes
take a 500-alert storm over 30 services.

What must hold: every alert is stored once (a re-sent alert is counted, not
duplicated), each service's storm becomes one group with exactly one
investigation job, every job runs each pipeline step exactly once (the step
trace shows no second execution), and every job finishes (none lost).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import yaml
from sqlalchemy import func, select

from rootward.runtime.pipeline import DEFAULT_STEP_NAMES
from rootward.store.alerts import AlertGroupRow, AlertRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.jobs import Job, WorkerHeartbeat
from rootward.store.migrate import upgrade
from tests.databases import PgSession
from tests.e2e.console_server import free_port
from tests.integration.processes import wait_until_ready

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOTWARD = str(Path(sys.executable).parent / "rootward")
SERVICES = [f"svc-{i:02d}" for i in range(30)]
ALERTS = 500


def _storm() -> list[dict[str, object]]:
    """500 distinct critical alerts, round-robin over 30 services (16 or 17 each)."""
    return [
        {
            "name": "HighErrorRate",
            "service": SERVICES[i % len(SERVICES)],
            "severity": "critical",
            "labels": {"instance": f"pod-{i}"},
            "annotations": {"summary": f"5xx on pod-{i}"},
        }
        for i in range(ALERTS)
    ]


class Fleet:
    def __init__(self, tmp_path: Path, db_url: str) -> None:
        self.tmp_path = tmp_path
        self.config = tmp_path / "rootward.yaml"
        self.db_url = db_url
        runtime = {"lease_s": 5, "heartbeat_s": 0.5, "poll_s": 0.05, "workers": 2, "pipeline": "placeholder"}
        self.config.write_text(
            yaml.safe_dump({"database": {"url": db_url}, "runtime": runtime, "data_dir": str(tmp_path)})
        )
        self.trace = tmp_path / "steps.trace"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.url = ""

    def _start(self, name: str, *args: str, **env_extra: str) -> subprocess.Popen[bytes]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_")}
        env.update(ROOTWARD_STEP_TRACE=str(self.trace), ROOTWARD_PLACEHOLDER_STEP_S="0.02", **env_extra)
        with (self.tmp_path / f"{name}.log").open("wb") as log:
            proc = subprocess.Popen([ROOTWARD, *args, "--config", str(self.config)], env=env, stdout=log, stderr=log)
        self.procs.append(proc)
        return proc

    def start_api(self) -> None:
        port = free_port()
        proc = self._start(
            "api",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            ROOTWARD_RUNTIME__WORKERS="0",
            ROOTWARD_INTAKE__AUTH="none",
            ROOTWARD_SERVER__LOG_LEVEL="warning",
        )
        self.url = f"http://127.0.0.1:{port}"
        wait_until_ready(proc, f"{self.url}/healthz", self.tmp_path / "api.log", "rootward serve", 90)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def fleet(tmp_path: Path, pg_session: PgSession) -> Iterator[Fleet]:
    schema = pg_session.create_schema()
    running = Fleet(tmp_path, pg_session.url(schema))
    try:
        yield running
    finally:
        running.stop()
        pg_session.drop_schema(schema)


def _post_all(url: str, batches: list[list[dict[str, object]]]) -> list[int]:
    with httpx.Client(base_url=url, timeout=30) as client, ThreadPoolExecutor(8) as pool:
        return list(pool.map(lambda batch: client.post("/api/v1/alerts", json=batch).status_code, batches))


def test_two_workers_and_an_api_take_a_500_alert_storm_exactly_once(fleet: Fleet) -> None:
    upgrade(fleet.db_url)  # migrated once up front, so the three processes can start together
    workers = [fleet._start(f"worker-{i}", "worker") for i in range(2)]
    fleet.start_api()

    engine = make_engine(fleet.db_url)
    sessions = make_session_factory(engine)
    deadline = time.monotonic() + 90
    while True:  # both workers are polling before the storm begins, so both can take a share
        with sessions() as s:
            if s.scalar(select(func.count()).select_from(WorkerHeartbeat)) == 2:
                break
        assert all(w.poll() is None for w in workers), "a worker died at start"
        assert time.monotonic() < deadline, "the workers did not start in 90 s"
        time.sleep(0.3)

    storm = _storm()
    statuses = _post_all(fleet.url, [storm[i : i + 10] for i in range(0, ALERTS, 10)])
    assert statuses == [202] * (ALERTS // 10)
    # A retrying sender re-delivers 100 of them: counted on the stored alert, not stored again.
    assert _post_all(fleet.url, [storm[i : i + 10] for i in range(0, 100, 10)]) == [202] * 10

    try:
        deadline = time.monotonic() + 120
        while True:
            with sessions() as s:
                statuses_now = Counter(s.scalars(select(Job.status)))
            if statuses_now and set(statuses_now) == {"done"}:
                break
            assert all(w.poll() is None for w in workers), "a worker died"
            assert time.monotonic() < deadline, f"jobs not all done after 120 s: {statuses_now}"
            time.sleep(0.5)

        with sessions() as s:
            assert s.scalar(select(func.count()).select_from(AlertRow)) == ALERTS
            repeat_counts = Counter(s.scalars(select(AlertRow.count)))
            assert repeat_counts == {1: ALERTS - 100, 2: 100}
            groups = list(s.scalars(select(AlertGroupRow)))
            jobs = list(s.scalars(select(Job)))
        assert sorted(g.service for g in groups) == SERVICES  # one group per service
        assert sum(g.alert_count for g in groups) == ALERTS
        assert len(jobs) == len(groups)  # one investigation per group
        assert {j.group_id for j in jobs} == {g.id for g in groups}
        assert {g.investigation_job_id for g in groups} == {j.id for j in jobs}
        assert all(j.status == "done" and j.attempts == 1 for j in jobs)
    finally:
        engine.dispose()

    executions = Counter()
    owners: dict[str, set[str]] = {}
    for line in fleet.trace.read_text().splitlines():
        job_id, index, _name, worker, _attempt, _pid = line.split("\t")
        executions[(job_id, int(index))] += 1
        owners.setdefault(job_id, set()).add(worker)
    assert set(executions.values()) == {1}, "a step ran twice"
    assert len(executions) == len(jobs) * len(DEFAULT_STEP_NAMES)  # none lost
    assert all(len(w) == 1 for w in owners.values())  # no job changed hands
    assert len({next(iter(w)).rsplit(":", 1)[0] for w in owners.values()}) == 2, "both workers took jobs"
