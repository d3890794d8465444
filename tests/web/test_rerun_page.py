"""The console's re-investigate button queues a new investigation of the incident's alerts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from rootward.domain.alert import Alert, Severity
from rootward.domain.investigation import InvestigationResult
from rootward.domain.roles import Role
from rootward.runtime.intake import accept_alerts
from rootward.settings import RouterSettings, load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import save_investigation
from rootward.store.jobs import Job
from rootward.store.users import add_user, create_token
from rootward.web.app import create_app
from tests.web.signin import sign_in

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_a_responder_re_investigates_and_a_viewer_may_not(sqlite_migrated_url: str, tmp_path: Path) -> None:
    engine = make_engine(sqlite_migrated_url)
    sessions = make_session_factory(engine)
    alert = Alert("fp", "ServiceDown", "orders", Severity.P1, "firing", T0)
    group_id = accept_alerts(sessions, [alert], source="am", settings=RouterSettings(), now=T0).group_ids[0]
    with sessions() as s, s.begin():
        tokens = {
            n: (add_user(s, n, r), create_token(s, n))[1] for n, r in (("vic", Role.VIEWER), ("rita", Role.RESPONDER))
        }
        row = save_investigation(
            s, InvestigationResult(bundle="b", status="inconclusive"), title="ServiceDown on orders",
            service="orders", group_id=group_id,
        )  # fmt: skip
        investigation_id = row.id
    settings = load_settings(data_dir=tmp_path, database={"url": sqlite_migrated_url}, runtime={"workers": 0})
    with TestClient(create_app(settings, engine=engine)) as client:
        csrf = sign_in(client, tokens["vic"])
        assert "Re-investigate" in client.get(f"/incidents/{investigation_id}").text
        denied = client.post(f"/incidents/{investigation_id}/rerun", data={"csrf_token": csrf}, follow_redirects=False)
        assert denied.status_code == 403
        csrf = sign_in(client, tokens["rita"])
        done = client.post(f"/incidents/{investigation_id}/rerun", data={"csrf_token": csrf}, follow_redirects=False)
        assert done.status_code == 303 and "rerun=" in done.headers["location"]
        assert "queued: it appears below when it is recorded" in client.get(done.headers["location"]).text
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Job)) == 2
    engine.dispose()
