"""The latest risk report through the API and the console, and the job that keeps and posts it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select

from rootward.domain.roles import Role
from rootward.notify.settings import NotifySettings
from rootward.runtime.risk_report import due, latest_report, store_and_post
from rootward.settings import load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.outbox import OutboxRow
from rootward.store.users import add_user, create_token
from rootward.web.app import create_app
from rootward.worldmodel.risk.checks import RiskSeries
from rootward.worldmodel.risk.report import build_report
from rootward.worldmodel.risk.settings import RiskSettings
from tests.web.signin import sign_in

NOW = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)


def _report():  # type: ignore[no-untyped-def]
    end = int(NOW.timestamp())
    ts = tuple(range(end - 24 * 3600, end + 1, 300))
    filling = tuple(0.5 + 0.45 * i / (len(ts) - 1) for i in range(len(ts)))  # 0.95 now, full in ~2.7 h
    disk = RiskSeries("disk", "db-1", "1 - avail/size", (("mountpoint", "/data"),), ts, filling, 1.0)
    flat = RiskSeries("disk", "web-1", "1 - avail/size", (("mountpoint", "/"),), ts, tuple(0.4 for _ in ts), 1.0)
    return build_report([disk, flat], NOW)


@pytest.fixture
def engine(migrated_db_url: str) -> Iterator[Engine]:
    engine = make_engine(migrated_db_url)
    yield engine
    engine.dispose()


def test_the_report_is_kept_once_a_day_and_its_digest_queued_once(engine: Engine) -> None:
    sessions = make_session_factory(engine)
    notify = NotifySettings.model_validate(
        {"webhooks": [{"name": "ops", "url": "http://127.0.0.1:9/hook", "secret": "s"}]}
    )
    with sessions() as s:
        assert due(s, 86400, NOW)
    assert store_and_post(sessions, _report(), RiskSettings(), notify) == ["ops"]
    store_and_post(sessions, _report(), RiskSettings(), notify)  # a second replica the same day
    with sessions() as s:
        assert not due(s, 86400, NOW + timedelta(hours=1)) and due(s, 86400, NOW + timedelta(days=1))
        assert s.scalar(select(func.count()).select_from(OutboxRow).where(OutboxRow.key == "risk:2026-06-01")) == 1
        row = s.scalar(select(OutboxRow))
        assert row is not None and "db-1" in row.payload["facts"][0]
        latest = latest_report(s)
    assert latest is not None and [e["entity"] for e in latest["entries"]] == ["db-1"]


def test_api_and_console_show_the_latest_report(engine: Engine, tmp_path: Path) -> None:
    sessions = make_session_factory(engine)
    with sessions() as s, s.begin():
        add_user(s, "vic", Role.VIEWER)
        token = create_token(s, "vic")
    url = str(engine.url.render_as_string(hide_password=False))
    settings = load_settings(data_dir=tmp_path, database={"url": url}, intake={"auth": "none"}, runtime={"workers": 0})
    with TestClient(create_app(settings, engine=engine)) as client:
        assert client.get("/api/v1/risk").status_code == 401
        empty = client.get("/api/v1/risk", headers={"Authorization": f"Bearer {token}"})
        assert empty.status_code == 200 and empty.json()["entries"] == []
        store_and_post(sessions, _report(), RiskSettings(), NotifySettings())
        body = client.get("/api/v1/risk", headers={"Authorization": f"Bearer {token}"}).json()
        entry = body["entries"][0]
        assert (
            entry["entity"] == "db-1" and entry["kind"] == "disk_fill" and entry["series"][0].startswith("prometheus:")
        )
        sign_in(client, token)
        page = client.get("/risk")
        assert page.status_code == 200 and "db-1" in page.text and "web-1" not in page.text
