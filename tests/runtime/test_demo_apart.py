"""The demo apart from real data: simulated incidents are marked, never filed as knowledge, and purged on request."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select
from typer.testing import CliRunner

from rootward.cli import app
from rootward.domain.investigation import InvestigationResult
from rootward.engine.risk_gate import Incident, plan_actions
from rootward.notify.message import Notification
from rootward.runtime.execution import run_job
from rootward.runtime.queue import claim
from rootward.runtime.resolution import teach_from_confirmed
from rootward.runtime.worker import pipeline_for
from rootward.settings import load_settings
from rootward.store.alerts import AlertGroupRow, AlertRow
from rootward.store.audit import AuditRow
from rootward.store.investigations import InvestigationRow, save_investigation
from rootward.store.jobs import Job
from rootward.store.knowledge import KnowledgeDocumentRow, RunbookDraftRow
from rootward.store.outbox import OutboxRow
from tests.runtime.simulated import queue_bundle, simulated_bundle, write_config

PAGER = {"webhooks": [{"name": "pager", "url": "http://127.0.0.1:9/hook", "secret": "s"}]}


def _run_simulated(tmp_path: Path):  # type: ignore[no-untyped-def]
    bundles = str(tmp_path / "bundles")
    config = write_config(
        tmp_path / "rootward.yaml", tmp_path, notify=PAGER, replay={"dirs": [bundles], "simulated_dirs": [bundles]}
    )
    settings = load_settings(config)
    sessions, job = queue_bundle(settings, simulated_bundle(tmp_path))
    with sessions() as session:
        claimed = claim(session, "w1", 120)
    assert claimed is not None
    assert run_job(sessions, claimed, pipeline_for(settings, sessions), lease_s=120) == "done"
    return settings, sessions, job


def test_a_simulated_incident_is_marked_and_never_filed_into_the_knowledge_base(tmp_path: Path) -> None:
    _, sessions, job = _run_simulated(tmp_path)
    with sessions() as session:
        row = session.get_one(InvestigationRow, job.id)
        result = InvestigationResult.model_validate(row.result)
        filed = session.scalar(select(func.count()).select_from(KnowledgeDocumentRow))
        [queued] = session.scalars(select(OutboxRow)).all()
    assert row.source == "simulated" and row.simulated
    # A live incident with this result would have been filed (the plan asks for it); this one is not.
    incident = Incident(investigation_id=row.id, group_id=row.group_id or "", title=row.title, service=row.service)
    planned = [a.name for a in plan_actions(result, None, "L2", row.severity, incident).safe_actions]
    assert "route_to_km" in planned
    assert filed == 0
    assert Notification.from_dict(queued.payload).title.startswith("[simulated] ")
    taught = teach_from_confirmed(sessions, row.id, "", "", by="rita")
    assert not taught.draft and taught.learned_trials == 0 and "simulated" in taught.skipped
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(RunbookDraftRow)) == 0


def test_demo_purge_removes_simulated_incidents_and_keeps_live_ones(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    settings, sessions, job = _run_simulated(tmp_path)
    with sessions() as session, session.begin():
        live = save_investigation(
            session, InvestigationResult(bundle="x", status="inconclusive"), title="t", service="s"
        )
    monkeypatch.setenv("ROOTWARD_CONFIG", str(tmp_path / "rootward.yaml"))  # its replay.simulated_dirs
    monkeypatch.setenv("ROOTWARD_DATA_DIR", str(settings.data_dir))  # where `serve --demo` keeps its bundles
    demo_bundles = Path(settings.data_dir) / "demo-bundles" / "shop-x"
    demo_bundles.mkdir(parents=True)
    result = CliRunner().invoke(app, ["demo", "--purge"])
    assert result.exit_code == 0, result.output
    assert "1 simulated incidents purged" in result.output and "1 demo bundles removed" in result.output
    with sessions() as session:
        assert session.get(InvestigationRow, job.id) is None and session.get(InvestigationRow, live.id) is not None
        for model in (Job, AlertRow, AlertGroupRow, OutboxRow):
            assert session.scalar(select(func.count()).select_from(model)) == 0, model.__tablename__
        assert session.scalar(select(AuditRow.kind).where(AuditRow.kind == "demo.purged")) == "demo.purged"
    assert not demo_bundles.exists()
