"""A real `rootward serve` over a data dir seeded with the sample bundles of examples/.

Seeding goes through the CLI (`rootward import`), users and approval requests
through the store (what `rootward users add` / the engine would write), so
the browser sees exactly what an operator's server would show.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from rootward.actions.approvals import request_approval
from rootward.domain.roles import Role
from rootward.store.approvals import ApprovalRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import InvestigationRow
from rootward.store.users import add_user, create_token
from rootward.worldmodel.prediction_gate import MemoryLedger, ProposedAction, commit_prediction
from tests.conftest import EXAMPLES
from tests.integration.processes import wait_until_ready
from tests.sources.local_http import free_port

REPO = Path(__file__).resolve().parents[2]
ROOTWARD = Path(sys.executable).parent / "rootward"


@dataclass
class ConsoleServer:
    url: str
    data_dir: Path
    tokens: dict[str, str] = field(default_factory=dict)  # user name -> API token
    incidents: dict[str, str] = field(default_factory=dict)  # bundle name -> investigation id
    root_causes: dict[str, tuple[str, str]] = field(default_factory=dict)  # bundle -> (entity, fault) recorded
    approvals: dict[str, str] = field(default_factory=dict)  # bundle name -> pending approval id


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_")}
    env.update(
        ROOTWARD_DATA_DIR=str(data_dir),
        ROOTWARD_INTAKE__AUTH="none",
        ROOTWARD_RUNTIME__WORKERS="0",
        ROOTWARD_SERVER__LOG_LEVEL="warning",
    )
    return env


def _pending_approval(session: object, investigation_id: str, target: str) -> str:
    ledger = MemoryLedger()
    action = ProposedAction.of("rollback", target, namespace="shop", to_revision=41)
    commit_prediction(ledger, action, {"entities": [target, "checkout"], "alerts": [], "window_s": 600})
    row = request_approval(session, action, ledger, investigation_id=investigation_id)  # type: ignore[arg-type]
    assert isinstance(row, ApprovalRow), row
    return row.id


def seed(data_dir: Path) -> ConsoleServer:
    bundles = sorted(p for p in EXAMPLES.iterdir() if (p / "incident.yaml").is_file())
    subprocess.run(
        [str(ROOTWARD), "import", *map(str, bundles)], env=_env(data_dir), check=True, capture_output=True, timeout=240
    )
    server = ConsoleServer(url="", data_dir=data_dir)
    engine = make_engine(f"sqlite:///{data_dir / 'rootward.db'}")
    try:
        with make_session_factory(engine)() as session, session.begin():
            for name, role in (("anna", Role.APPROVER), ("vic", Role.VIEWER), ("rita", Role.RESPONDER)):
                add_user(session, name, role)
                server.tokens[name] = create_token(session, name, "e2e")
            for row in session.scalars(select(InvestigationRow)):
                server.incidents[row.bundle] = row.id
                server.root_causes[row.bundle] = (row.top_entity, row.top_fault)
            for bundle, target in (
                ("shop-deploy-regression-01", "catalog"),
                ("shop-connection-pool-exhaustion-00", "payment"),
            ):
                server.approvals[bundle] = _pending_approval(session, server.incidents[bundle], target)
            # The one a cross-site page tries to approve (tests/e2e/test_console_browser.py).
            server.approvals["csrf-target"] = _pending_approval(
                session, server.incidents["shop-deploy-regression-01"], "checkout"
            )
    finally:
        engine.dispose()
    return server


@contextmanager
def running(server: ConsoleServer, log: Path) -> Iterator[ConsoleServer]:
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(ROOTWARD), "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=_env(server.data_dir),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            server.url = f"http://127.0.0.1:{port}"
            wait_until_ready(proc, f"{server.url}/healthz", log, "rootward serve", 90)
            yield server
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
