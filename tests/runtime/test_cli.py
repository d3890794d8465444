"""`rootward investigations list|show` over a real database."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from rootward.cli import app
from rootward.runtime.execution import run_job
from rootward.runtime.job_state import JobState
from rootward.runtime.pipeline import Step
from rootward.runtime.queue import claim, enqueue_investigation
from rootward.runtime.worker import WorkerPool
from rootward.store.alerts import AlertGroupRow
from rootward.store.jobs import utcnow
from tests.runtime.conftest import runtime_settings
from tests.runtime.scratch import mark, scratch_pipeline

runner = CliRunner()


@pytest.fixture
def config(tmp_path: Path, migrated_db_url: str, clean_env: None) -> Path:
    path = tmp_path / "rootward.yaml"
    config = {"database": {"url": migrated_db_url}, "data_dir": str(tmp_path), "runtime": {"pipeline": "placeholder"}}
    path.write_text(yaml.safe_dump(config))
    return path


def _cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def test_job_past_its_ttl_is_expired_and_shown_by_investigations_list(
    config: Path, migrated_db_url: str, session_factory: sessionmaker[Session]
) -> None:
    with session_factory() as session:
        stale = enqueue_investigation(session, "group-stale", 2, "L1", now=utcnow() - timedelta(minutes=11))
        fresh = enqueue_investigation(session, "group-fresh", 1, "L2")
        session.commit()
    # The sweep every worker runs (even one with no slots), with the default 10-minute TTL.
    pool = WorkerPool(runtime_settings(migrated_db_url, queue_ttl_s=600), session_factory, concurrency=0)
    pool.start()
    pool.stop()

    listed = _cli("investigations", "list", "--config", str(config))
    assert listed.exit_code == 0, listed.output
    line = next(row for row in listed.output.splitlines() if row.startswith(stale))
    assert "expired" in line and "not started within the queue TTL of 600 s" in line
    assert "queued: 1" in listed.output and "expired: 1" in listed.output

    only = json.loads(_cli("investigations", "list", "--status", "expired", "--json", "--config", str(config)).output)
    assert [job["id"] for job in only["jobs"]] == [stale]
    assert fresh not in {job["id"] for job in only["jobs"]}


def test_show_lists_each_step_with_its_checkpoint_and_the_failure(
    config: Path, session_factory: sessionmaker[Session]
) -> None:
    def boom(state: JobState) -> JobState:
        raise ValueError("no metrics for checkout")

    with session_factory() as session:
        job_id = enqueue_investigation(session, "group-1", 0, "L2")
        session.commit()
    with session_factory() as session:
        job = claim(session, "w1", 30)
    assert job is not None
    pipeline = scratch_pipeline([Step("assemble_context", mark(ctx=1)), Step("hypotheses", boom)])
    assert run_job(session_factory, job, pipeline, lease_s=30) == "failed"

    shown = _cli("investigations", "show", job_id[:12], "--config", str(config))
    assert shown.exit_code == 0, shown.output
    assert "status:    failed" in shown.output
    assert "step hypotheses: ValueError: no metrics for checkout" in shown.output
    report = json.loads(_cli("investigations", "show", job_id, "--json", "--config", str(config)).output)
    steps = {step["name"]: step for step in report["steps"]}
    assert steps["assemble_context"]["status"] == "done" and steps["assemble_context"]["checkpointed_at"]
    assert steps["hypotheses"]["status"] == "failed"
    assert steps["specialists"]["status"] == "pending"
    assert report["state"]["ctx"] == 1


def test_show_unknown_id_and_list_bad_status_fail_with_a_message(config: Path) -> None:
    missing = _cli("investigations", "show", "nope-nope", "--config", str(config))
    assert missing.exit_code == 1 and "no investigation 'nope-nope'" in missing.output
    bad = _cli("investigations", "list", "--status", "lost", "--config", str(config))
    assert bad.exit_code == 2 and "--status must be one of" in bad.output


def test_list_names_the_service_of_the_alert_group(config: Path, session_factory: sessionmaker[Session]) -> None:
    now = utcnow()
    with session_factory() as session:
        session.add(
            AlertGroupRow(
                id="grp-checkout",
                service="checkout",
                status="open",
                tier="L2",
                human=False,
                severity="P1",
                reason="test",
                opened_at=now,
                last_alert_at=now,
                alert_count=1,
                firing_count=1,
            )
        )
        session.flush()
        job_id = enqueue_investigation(session, "grp-checkout", 1, "L2")
        session.commit()
    listed = _cli("investigations", "list", "--config", str(config))
    line = next(row for row in listed.output.splitlines() if row.startswith(job_id))
    assert "checkout" in line.split()
    shown = _cli("investigations", "show", job_id, "--config", str(config))
    assert "service:   checkout" in shown.output
