"""Re-investigating a stored incident queues a new investigation of its alert group, linked by that group."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from rootward.cli import app
from rootward.domain.alert import Alert, Severity
from rootward.domain.investigation import InvestigationResult
from rootward.runtime.intake import accept_alerts
from rootward.runtime.rerun import CannotRerun, investigations_of_group, rerun_investigation
from rootward.settings import RouterSettings
from rootward.store.alerts import AlertGroupRow
from rootward.store.audit import AuditRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import save_investigation
from rootward.store.jobs import Job

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def sessions(sqlite_migrated_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(sqlite_migrated_url)
    yield make_session_factory(engine)
    engine.dispose()


def _investigated(sessions: sessionmaker[Session]) -> tuple[str, str]:
    alert = Alert("fp", "ServiceDown", "orders", Severity.P1, "firing", T0)
    group_id = accept_alerts(sessions, [alert], source="am", settings=RouterSettings(), now=T0).group_ids[0]
    with sessions() as s, s.begin():
        job_id = s.scalars(select(Job.id)).one()
        result = InvestigationResult(bundle="b", status="inconclusive", gaps=["no logs: Loki: cannot connect"])
        save_investigation(s, result, title="t", service="orders", job_id=job_id, group_id=group_id,
                           investigation_id=job_id)  # fmt: skip
    return job_id, group_id


def test_rerun_queues_a_new_investigation_of_the_same_group_and_audits_who_asked(
    sessions: sessionmaker[Session],
) -> None:
    old, group_id = _investigated(sessions)
    new = rerun_investigation(sessions, old, by="rita")
    assert new != old
    with sessions() as s:
        job = s.get(Job, new)
        group = s.get(AlertGroupRow, group_id)
        audit = s.scalars(select(AuditRow).where(AuditRow.kind == "investigation.rerun")).one()
        assert job is not None and (job.group_id, job.status) == (group_id, "queued")
        assert group is not None and group.investigation_job_id == new
        assert audit.subject == new and json.loads(audit.data) == {"rerun_of": old, "by": "rita"}
        assert [r.id for r in investigations_of_group(s, group_id)] == [old]  # the new one appears once recorded


def test_an_imported_investigation_cannot_be_rerun(sessions: sessionmaker[Session]) -> None:
    with sessions() as s, s.begin():
        row = save_investigation(s, InvestigationResult(bundle="b", status="validated"), title="t", service="x")
        imported = row.id
    with pytest.raises(CannotRerun, match="has no alert group"):
        rerun_investigation(sessions, imported, by="rita")
    with pytest.raises(CannotRerun, match="no investigation nope"):
        rerun_investigation(sessions, "nope", by="rita")


def test_cli_rerun_queues_the_job(sessions: sessionmaker[Session], sqlite_migrated_url: str, tmp_path: Path) -> None:
    old, _ = _investigated(sessions)
    config = tmp_path / "rootward.yaml"
    config.write_text(f"data_dir: {tmp_path}\ndatabase:\n  url: {sqlite_migrated_url}\n")
    out = CliRunner().invoke(app, ["investigate", "--rerun", old, "--config", str(config)])
    assert out.exit_code == 0, out.output
    assert f"of {old}" in out.output
    with sessions() as s:
        assert len(s.scalars(select(Job)).all()) == 2
    missing = CliRunner().invoke(app, ["investigate", "--rerun", "nope", "--config", str(config)])
    assert missing.exit_code == 1 and "no investigation nope" in missing.output
