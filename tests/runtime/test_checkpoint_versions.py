"""Checkpoints are the job state's JSON with a schema version; an older, unversioned (dict-shaped)
checkpoint still resumes, and one that cannot be read fails the job with a message that says why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from rootward.runtime.execution import run_job
from rootward.runtime.job_state import SCHEMA_VERSION, JobState
from rootward.runtime.pipeline import Pipeline
from rootward.runtime.queue import claim
from rootward.runtime.worker import pipeline_for
from rootward.settings import load_settings
from rootward.store.investigations import InvestigationRow
from rootward.store.jobs import Checkpoint, Job, utcnow
from tests.runtime.simulated import queue_bundle, simulated_bundle, write_config

NEW_RESULT_KEYS = ("summary_source", "proposals", "no_fault", "ruled_out")


def _unversioned(state: JobState) -> dict[str, Any]:
    """The state as the previous version checkpointed it: engine keys at the top level, `audit`, no version."""
    old = state.model_dump(mode="json", exclude={"schema_version", "engine", "engine_failure", "steps"})
    assert state.engine is not None
    engine = state.engine.model_dump(mode="json")
    engine["audit"] = engine.pop("trace")
    if engine["result"] is not None:
        engine["result"] = {k: v for k, v in engine["result"].items() if k not in NEW_RESULT_KEYS}
    return {**old, **engine}


def _worker(tmp_path: Path) -> tuple[sessionmaker[Session], Job, Pipeline]:
    settings = load_settings(write_config(tmp_path / "rootward.yaml", tmp_path))
    sessions, job = queue_bundle(settings, simulated_bundle(tmp_path))
    with sessions() as session:
        claimed = claim(session, "w1", 120)
    assert claimed is not None
    return sessions, claimed, pipeline_for(settings, sessions)


def _checkpoint_as(
    sessions: sessionmaker[Session], job: Job, step_index: int, name: str, state: dict[str, Any]
) -> None:
    """A checkpoint written before this version: the row as it stood, the job advanced past it."""
    with sessions() as session, session.begin():
        session.add(
            Checkpoint(
                job_id=job.id,
                step_index=step_index,
                step_name=name,
                state=state,
                worker_id="old-worker",
                attempt=job.attempts,
                started_at=utcnow(),
                created_at=utcnow(),
            )
        )
        session.execute(update(Job).where(Job.id == job.id).values(next_step=step_index + 1))


def test_an_unversioned_checkpoint_after_the_rca_resumes_to_a_recorded_investigation(tmp_path: Path) -> None:
    sessions, job, pipeline = _worker(tmp_path)
    upto = pipeline.names.index("rca")
    state = pipeline.initial_state(job)
    for step in pipeline.steps[: upto + 1]:
        state = step.run(state)
    assert state.engine is not None and state.engine.result is not None
    _checkpoint_as(sessions, job, upto, "rca", _unversioned(state))

    assert run_job(sessions, job, pipeline, lease_s=120) == "done"
    with sessions() as session:
        row = session.get_one(InvestigationRow, job.id)
        result = row.investigation
        latest = session.query(Checkpoint).filter_by(job_id=job.id).order_by(Checkpoint.step_index.desc()).first()
    assert result.status == "validated"
    assert result.top is not None and result.top.entity == state.engine.result.hypotheses[0].entity
    assert result.proposals and result.trace  # the risk gate ran on the migrated state; the agent trace survived
    assert latest is not None and latest.state["schema_version"] == SCHEMA_VERSION


def test_an_unreadable_unversioned_checkpoint_fails_the_job_saying_so(tmp_path: Path) -> None:
    sessions, job, pipeline = _worker(tmp_path)
    broken = {"job_id": job.id, "group_id": job.group_id, "tier": job.tier, "started_at": 1.0, "hypotheses": "H1"}
    _checkpoint_as(sessions, job, 2, "assemble_context", broken)

    assert run_job(sessions, job, pipeline, lease_s=120) == "failed"
    with sessions() as session:
        error = session.get_one(Job, job.id).error
    assert error is not None
    assert "the checkpoint after step assemble_context is an unversioned (pre-schema) checkpoint" in error
    assert "cannot be resumed" in error


def test_a_checkpoint_from_a_newer_version_fails_the_job_asking_for_an_upgrade(tmp_path: Path) -> None:
    sessions, job, pipeline = _worker(tmp_path)
    newer = {**pipeline.initial_state(job).model_dump(mode="json"), "schema_version": SCHEMA_VERSION + 1}
    _checkpoint_as(sessions, job, 0, "snapshot", newer)

    assert run_job(sessions, job, pipeline, lease_s=120) == "failed"
    with sessions() as session:
        error = session.get_one(Job, job.id).error
    assert error is not None and "newer than this rootward" in error and "upgrade the worker" in error
