"""Queue throughput: jobs/s through claim + 6 checkpointed steps, on SQLite and PostgreSQL.

Enqueues `JOBS` investigations, then drains them with one in-process worker
pool of `SLOTS` slots running the placeholder pipeline (no step delay), so the
number measures the runtime's own cost: claims, guarded checkpoints, audit
rows and commits. PostgreSQL is skipped when not reachable. Bounded: each
backend stops after `LIMIT_S` seconds and reports how far it got.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from rootward.runtime.pipeline import default_pipeline
from rootward.runtime.queue import enqueue_investigation
from rootward.runtime.worker import WorkerPool
from rootward.settings import DatabaseSettings, RuntimeSettings, Settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.jobs import Checkpoint, Job
from rootward.store.migrate import upgrade

HERE = Path(__file__).resolve().parent
JOBS = 200
SLOTS = 4
LIMIT_S = 60.0
PG_ADMIN_URL = os.environ.get("ROOTWARD_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def drain(url: str) -> dict[str, Any]:
    upgrade(url)
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    with sessions() as session:
        for n in range(JOBS):
            enqueue_investigation(session, f"bench-group-{n}", n % 4, "L2")
        session.commit()
    settings = Settings(
        database=DatabaseSettings(url=url),
        runtime=RuntimeSettings(
            workers=SLOTS, max_concurrent=SLOTS, poll_s=0.02, heartbeat_s=1, lease_s=30, pipeline="placeholder"
        ),
    )
    pool = WorkerPool(settings, sessions, pipeline=default_pipeline())
    started = time.perf_counter()
    pool.start()
    done = 0
    try:
        while time.perf_counter() - started < LIMIT_S:
            with sessions() as session:
                done = session.scalar(select(func.count()).select_from(Job).where(Job.status == "done")) or 0
            if done == JOBS:
                break
            time.sleep(0.05)
    finally:
        elapsed = time.perf_counter() - started
        pool.stop()
    with sessions() as session:
        steps = session.scalar(select(func.count()).select_from(Checkpoint)) or 0
    engine.dispose()
    return {
        "jobs": JOBS,
        "jobs_done": done,
        "slots": SLOTS,
        "seconds": round(elapsed, 2),
        "jobs_per_s": round(done / elapsed, 1),
        "checkpoints_per_s": round(steps / elapsed, 1),
        "steps_per_job": len(default_pipeline()),
    }


def _postgres() -> tuple[str, Any] | None:
    try:
        import psycopg

        admin = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3)
    except Exception:
        return None
    name = f"rootward_bench_{secrets.token_hex(4)}"
    admin.execute(f'CREATE DATABASE "{name}"')
    return PG_ADMIN_URL.rpartition("/")[0] + f"/{name}", (admin, name)


def main() -> dict[str, Any]:
    results: dict[str, Any] = {"cpu_count": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)}
    with tempfile.TemporaryDirectory() as tmp:
        results["sqlite"] = drain(f"sqlite:///{tmp}/bench.db")
    pg = _postgres()
    if pg is None:
        results["postgresql"] = {"skipped": "PostgreSQL not reachable"}
    else:
        url, (admin, name) = pg
        try:
            results["postgresql"] = drain(url)
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.close()
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "runtime.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
