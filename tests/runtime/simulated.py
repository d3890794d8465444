"""A simulated incident queued as a live alert group: what the runtime tests investigate end to end.

The bundle is made by the simulator in the test's own directory (no shared
data); its alerts name it in the `rootward_bundle` annotation, so a worker
whose configuration lists that directory under `replay.dirs` investigates
against it exactly as `serve --demo` does.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.bundle.load import load_bundle
from rootward.runtime.intake import accept_alerts
from rootward.settings import Settings
from rootward.sim.generate import generate
from rootward.sources.replay import ANNOTATION
from rootward.store.db import make_engine, make_session_factory
from rootward.store.jobs import Job
from rootward.store.migrate import upgrade

SEED = 7


def simulated_bundle(root: Path, fault: str = "deploy_regression") -> Path:
    """One shop incident of `fault` (seed 7: validated, with a remediation proposal in rule mode)."""
    [made] = generate(root / "bundles", count=1, seed=SEED, topologies=["shop"], faults=[fault])
    return made.path


def write_config(path: Path, root: Path, **sections: object) -> Path:
    """A config file for `root` (its own SQLite file, replay of `root/bundles`, no intake auth) plus `sections`."""
    config = {
        "data_dir": str(root / "data"),
        "database": {"url": f"sqlite:///{root / 'rw.db'}"},
        "intake": {"auth": "none"},
        "replay": {"dirs": [str(root / "bundles")]},
        **sections,
    }
    path.write_text(yaml.safe_dump(config))
    return path


def queue_bundle(settings: Settings, bundle: Path) -> tuple[sessionmaker[Session], Job]:
    """Migrate the configured database and queue the bundle's alerts through the router; the first job."""
    upgrade(settings.database_url)
    sessions = make_session_factory(make_engine(settings.database_url))
    alerts = [replace(a, annotations={**a.annotations, ANNOTATION: str(bundle)}) for a in load_bundle(bundle).alerts]
    accept_alerts(sessions, alerts, source="alertmanager", settings=settings.router)
    with sessions() as session:
        jobs = list(session.scalars(select(Job).order_by(Job.enqueued_at)))
    assert jobs, "the router queued no investigation"
    return sessions, jobs[0]
