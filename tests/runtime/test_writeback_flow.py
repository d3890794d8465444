"""A PagerDuty incident in, the RCA back out as a note on it: intake, the pipeline, the outbox, a local PagerDuty."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from pydantic import SecretStr
from sqlalchemy import select

from rootward.bundle.load import load_bundle
from rootward.ingest.pagerduty import PagerDutySettings, read_pagerduty
from rootward.notify.dispatch import build_channels
from rootward.notify.outbox import OutboxDispatcher
from rootward.runtime.intake import accept_alerts
from rootward.runtime.investigation_steps import InvestigationSteps
from rootward.runtime.job_state import JobState
from rootward.settings import load_settings
from rootward.sources.bundle import bundle_sources
from rootward.store.db import make_engine, make_session_factory
from rootward.store.jobs import Job
from rootward.store.migrate import upgrade
from rootward.store.outbox import OutboxRow
from tests.conftest import EXAMPLES
from tests.ingest.test_connectors import pagerduty_event
from tests.notify.protocol_servers import Target, pagerduty_route
from tests.sources.local_http import serve

INCIDENT = "Q2DJ8RV3PGO4MN"


def test_an_incident_from_pagerduty_gets_its_rca_back_as_a_note(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rw.db'}"
    upgrade(url)
    sessions = make_session_factory(make_engine(url))
    target = Target()
    with serve(pagerduty_route(target)) as (pd_url, _seen):
        settings = load_settings(
            data_dir=tmp_path,
            database={"url": url},
            intake={"auth": "none"},
            notify={
                "console_url": "http://rootward.example",
                "pagerduty": {"api_token": "pd-token", "from_email": "oncall@example.com", "base_url": pd_url},
            },
        )
        body = json.dumps(pagerduty_event()).encode()
        batch = read_pagerduty(body, datetime.now(UTC), PagerDutySettings(signing_secrets=[SecretStr("s")]))
        accept_alerts(sessions, batch.alerts, source="pagerduty", settings=settings.router)
        with sessions() as s:
            job = s.scalars(select(Job)).one()
        bundle = load_bundle(EXAMPLES / "shop-connection-pool-exhaustion-00")
        steps = InvestigationSteps(settings, sessions, sources=bundle_sources(bundle))
        state = JobState.model_validate({"job_id": job.id, "group_id": job.group_id, "tier": job.tier})
        for step in steps.pipeline().steps:
            state = step.run(state)
        assert state.notified == ["pagerduty"]
        with sessions() as s:
            [row] = s.scalars(select(OutboxRow))
            assert (row.channel, row.key) == ("pagerduty", f"investigation:{job.id}:pagerduty:{INCIDENT}")
        dispatcher = OutboxDispatcher(sessions, build_channels(settings.notify, sessions))
        assert dispatcher.deliver_once() == 1
        assert dispatcher.deliver_once() == 0
    [note] = target.notes[INCIDENT]
    assert f"Console: http://rootward.example/incidents/{job.id}" in note
    assert note.splitlines()[0] == f"rootward RCA: [{state.tier}] checkout 5xx above 5% on checkout"
    assert state.result().status in ("validated", "inconclusive", "no_fault")
