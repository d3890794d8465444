"""A worker predicts with the world-model settings of the config file it was started with (`--config X`),
not with ./rootward.yaml or $ROOTWARD_CONFIG."""

from __future__ import annotations

from pathlib import Path

import pytest

from rootward.runtime.execution import run_job
from rootward.runtime.queue import claim
from rootward.runtime.worker import pipeline_for
from rootward.settings import load_settings
from rootward.store.investigations import InvestigationRow
from rootward.store.worldmodel import proposals_of
from tests.runtime.simulated import queue_bundle, simulated_bundle, write_config


def _investigate_with(config: Path, root: Path) -> tuple[str, str | None]:
    """Run the queued job as a worker built from `config` does; the top proposal's status and reason."""
    settings = load_settings(config)
    sessions, job = queue_bundle(settings, simulated_bundle(root))
    with sessions() as session:
        claimed = claim(session, "w1", 120)
    assert claimed is not None and claimed.id == job.id
    assert run_job(sessions, claimed, pipeline_for(settings, sessions), lease_s=120) == "done"
    with sessions() as session:
        row = session.get_one(InvestigationRow, job.id)
        [proposal] = row.investigation.proposals
        [stored] = proposals_of(session, job.id)
    assert (stored.status, stored.reason) == (proposal.status, proposal.reason)
    return proposal.status, proposal.reason


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory whose ./rootward.yaml says the opposite of the worker's config; no $ROOTWARD_*."""
    import os

    for key in list(os.environ):
        if key.startswith("ROOTWARD_"):
            monkeypatch.delenv(key)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "rootward.yaml").write_text("worldmodel: {disabled: false}\n")
    monkeypatch.chdir(cwd)
    return tmp_path


def test_worker_started_with_a_kill_switch_config_withholds_the_proposal(elsewhere: Path) -> None:
    config = write_config(elsewhere / "x.yaml", elsewhere, worldmodel={"disabled": True})
    assert _investigate_with(config, elsewhere) == ("withheld", "kill_switch")


def test_worker_started_without_a_kill_switch_asks_for_approval(elsewhere: Path) -> None:
    (elsewhere / "cwd" / "rootward.yaml").write_text("worldmodel: {disabled: true}\n")
    config = write_config(elsewhere / "x.yaml", elsewhere)
    assert _investigate_with(config, elsewhere) == ("pending_approval", None)
