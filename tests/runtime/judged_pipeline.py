"""A migrated SQLite database with one example's alerts accepted and queued, and the pipeline run over it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import select

from rootward.bundle.load import load_bundle
from rootward.runtime.intake import accept_alerts
from rootward.runtime.investigation_steps import InvestigationSteps
from rootward.runtime.job_state import JobState
from rootward.settings import load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.jobs import Job
from rootward.store.migrate import upgrade
from tests.conftest import EXAMPLES

BUNDLE = EXAMPLES / "shop-connection-pool-exhaustion-00"
PipelineEnv = tuple[Any, Any, Any, Job]  # settings, sessions, bundle, an L1/L2 job


def pipeline_env(tmp_path: Path) -> PipelineEnv:
    url = f"sqlite:///{tmp_path / 'rw.db'}"
    upgrade(url)
    sessions = make_session_factory(make_engine(url))
    settings = load_settings(data_dir=tmp_path, database={"url": url}, intake={"auth": "none"})
    bundle = load_bundle(BUNDLE)
    accept_alerts(sessions, bundle.alerts, source="alertmanager", settings=settings.router)
    with sessions() as s:
        job = next(j for j in s.scalars(select(Job)) if j.tier in ("L1", "L2"))
        s.expunge(job)
    return settings, sessions, bundle, job


def run_pipeline(steps: InvestigationSteps, job: Job) -> JobState:
    state = JobState(job_id=job.id, group_id=job.group_id, tier=job.tier, priority=job.priority)
    for step in steps.pipeline().steps:
        state = JobState.load(json.loads(step.run(state).model_dump_json()))  # what a resumed worker loads
    return state
