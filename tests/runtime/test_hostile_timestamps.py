"""Issue 14, defect 3: a hostile timestamp on a warning must not cost the page of its group an RCA.

The reproduction: a `warning` for checkout with `startsAt` in year 1 (or 9999),
then a `page` for checkout that joins its group; the group's investigation must
finish with a result, on SQLite and PostgreSQL. Also the two defences behind the
edge: a row stored with such a time before intake bounded it, and a group whose
investigation failed gets a new one when a more severe alert joins.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.alert import Alert, Severity
from rootward.runtime.execution import run_job
from rootward.runtime.intake import accept_alerts
from rootward.runtime.queue import claim
from rootward.runtime.worker import pipeline_for
from rootward.settings import Settings, load_settings
from rootward.store.alerts import AlertGroupRow
from rootward.store.investigations import InvestigationRow
from rootward.store.jobs import Job
from rootward.web.app import create_app

AM = "/api/v1/alerts/alertmanager"


@pytest.fixture
def settings(migrated_db_url: str, tmp_path: Path) -> Settings:
    return load_settings(
        data_dir=tmp_path, database={"url": migrated_db_url}, intake={"auth": "none"}, runtime={"workers": 0}
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c


def am(severity: str, starts_at: str, fingerprint: str) -> dict[str, Any]:
    labels = {"alertname": f"Checkout{severity.title()}", "service": "checkout", "severity": severity}
    return {"alerts": [{"status": "firing", "labels": labels, "startsAt": starts_at, "fingerprint": fingerprint}]}


def run_next_job(settings: Settings, sessions: sessionmaker[Session]) -> tuple[str, Job]:
    with sessions() as session:
        job = claim(session, "test-worker", 60)
    assert job is not None, "no investigation was queued"
    return run_job(sessions, job, pipeline_for(settings, sessions), lease_s=60), job


@pytest.mark.parametrize("hostile", ["0001-01-01T00:00:01Z", "9999-12-31T23:59:59Z"])
def test_page_joining_a_group_whose_warning_had_a_hostile_start_gets_its_rca(
    client: TestClient, settings: Settings, hostile: str
) -> None:
    now = datetime.now(UTC).isoformat()
    warning = client.post(AM, json=am("warning", hostile, "warn1"))
    page = client.post(AM, json=am("page", now, "page1"))
    assert warning.status_code == page.status_code == 202
    assert page.json()["alerts"][0]["action"] == "joined_group"
    sessions = client.app.state.sessions  # type: ignore[attr-defined]

    outcome, job = run_next_job(settings, sessions)

    assert outcome == "done"
    with sessions() as s:
        stored = s.get(Job, job.id)
        assert stored is not None and stored.status == "done" and stored.error is None
        investigation = s.get(InvestigationRow, job.id)
        assert investigation is not None and investigation.status != "failed"
        assert investigation.group_id == warning.json()["groups"][0]


def test_row_stored_with_a_year_one_start_does_not_overflow_the_snapshot(
    settings: Settings, client: TestClient
) -> None:
    sessions = client.app.state.sessions  # type: ignore[attr-defined]
    legacy = Alert("old", "CheckoutDown", "checkout", Severity.P0, "firing", datetime(1, 1, 1, tzinfo=UTC))
    accept_alerts(sessions, [legacy], source="alertmanager", settings=settings.router)  # bypasses the edge

    outcome, job = run_next_job(settings, sessions)

    assert outcome == "done"
    with sessions() as s:
        assert s.get(InvestigationRow, job.id) is not None


def test_group_whose_investigation_failed_is_investigated_again_when_a_page_joins(
    settings: Settings, client: TestClient
) -> None:
    critical = client.post(AM, json=am("critical", datetime.now(UTC).isoformat(), "crit1")).json()
    group_id = critical["groups"][0]
    sessions = client.app.state.sessions  # type: ignore[attr-defined]
    with sessions() as s, s.begin():
        s.execute(update(Job).values(status="failed", error="step snapshot: OverflowError"))
    again = client.post(AM, json=am("critical", datetime.now(UTC).isoformat(), "crit2")).json()
    page = client.post(AM, json=am("page", datetime.now(UTC).isoformat(), "page1")).json()

    assert again["groups"] == page["groups"] == [group_id]
    with sessions() as s:
        jobs = list(s.scalars(select(Job).where(Job.group_id == group_id).order_by(Job.enqueued_at)))
        group = s.get(AlertGroupRow, group_id)
    # The equally severe alert starts nothing; the page starts one new investigation.
    assert [j.status for j in jobs] == ["failed", "queued"] and jobs[1].priority == Severity.P0.rank
    assert group is not None and group.investigation_job_id == jobs[1].id
