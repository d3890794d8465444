"""A small rootward world for the MCP tests: one recorded deploy incident, a viewer and a responder with tokens.

The incident is a simulated deploy regression (the in-repo simulator, fixed
seed), investigated in rule mode and recorded as `rootward import` would.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from rootward.domain.roles import Role
from rootward.engine.record import record_bundle
from rootward.sim.generate import generate
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import add_user, create_token


@dataclass(frozen=True)
class World:
    db_url: str
    bundles: Path  # the directory investigate_bundle may read
    bundle: Path
    incident_id: str
    change_id: str  # the deploy the RCA rests on
    viewer: str  # tokens
    responder: str
    tmp: Path

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a `rootward mcp` process over this world (no config file)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_")}
        env.update(ROOTWARD_DATABASE_URL=self.db_url, ROOTWARD_DATA_DIR=str(self.tmp), **extra)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        return env


@pytest.fixture
def world(sqlite_migrated_url: str, tmp_path: Path) -> World:
    bundles = tmp_path / "bundles"
    generated = generate(bundles, 1, 7, faults=["deploy_regression"])[0]
    engine = make_engine(sqlite_migrated_url)
    with make_session_factory(engine)() as session, session.begin():
        row = record_bundle(session, generated.path)
        change = next(e.cite for e in row.investigation.evidence.values() if e.kind == "change")
        add_user(session, "vic", Role.VIEWER)
        add_user(session, "rita", Role.RESPONDER)
        viewer, responder = create_token(session, "vic"), create_token(session, "rita")
        incident_id = row.id
    engine.dispose()
    return World(
        db_url=sqlite_migrated_url,
        bundles=bundles,
        bundle=generated.path,
        incident_id=incident_id,
        change_id=change.removeprefix("changes.json:"),
        viewer=viewer,
        responder=responder,
        tmp=tmp_path,
    )


CLI = [sys.executable, "-c", "from rootward.cli import main; main()"]
