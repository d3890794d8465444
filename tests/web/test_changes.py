"""`POST/GET /api/v1/changes` over a migrated SQLite database, and the change source reading it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rootward.settings import load_settings
from rootward.sources.stored_changes import StoredChangeSource
from rootward.store.db import make_engine, make_session_factory
from rootward.store.migrate import upgrade
from rootward.web.app import create_app

TOKEN = "ci-secret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'rootward.db'}"
    upgrade(url)
    settings = load_settings(data_dir=tmp_path, database={"url": url}, intake={"token": TOKEN})
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _deploy(**overrides: object) -> dict[str, object]:
    body: dict[str, object] = {
        "kind": "deploy",
        "service": "payment",
        "time": "2026-03-14T13:44:00Z",
        "version": "v2.31.0",
        "author": "ci",
        "summary": "bump hikari pool settings",
        "diff": "- maximumPoolSize: 40\n+ maximumPoolSize: 20",
    }
    body.update(overrides)
    return body


def test_posted_change_gets_201_with_id_and_is_listed_with_its_diff(client: TestClient) -> None:
    response = client.post("/api/v1/changes", json=_deploy(), headers=AUTH)
    assert response.status_code == 201
    change_id = response.json()["id"]
    listed = client.get(
        "/api/v1/changes", params={"service": "payment", "since": "2026-03-14T00:00:00Z"}, headers=AUTH
    ).json()["changes"]
    assert [c["id"] for c in listed] == [change_id]
    assert listed[0]["diff"] == "- maximumPoolSize: 40\n+ maximumPoolSize: 20"
    assert listed[0]["time"] == "2026-03-14T13:44:00Z"


def test_change_without_token_is_refused(client: TestClient) -> None:
    assert client.post("/api/v1/changes", json=_deploy()).status_code == 401
    assert client.get("/api/v1/changes", headers={"Authorization": "Bearer wrong"}).status_code == 401


def test_invalid_change_names_each_bad_field(client: TestClient) -> None:
    response = client.post(
        "/api/v1/changes", json=_deploy(kind="reboot", time="2026-03-14T13:44:00", service=""), headers=AUTH
    )
    assert response.status_code == 400
    fields = {f["field"] for f in response.json()["fields"]}
    assert fields == {"kind", "time", "service"}


def test_repeated_id_is_a_conflict_not_a_second_row(client: TestClient) -> None:
    assert client.post("/api/v1/changes", json=_deploy(id="gh-run-77"), headers=AUTH).status_code == 201
    again = client.post("/api/v1/changes", json=_deploy(id="gh-run-77"), headers=AUTH)
    assert again.status_code == 409
    listed = client.get("/api/v1/changes", params={"since": "2026-01-01T00:00:00Z"}, headers=AUTH)
    assert len(listed.json()["changes"]) == 1


def test_change_without_time_is_stamped_now_and_within_default_lookback(client: TestClient) -> None:
    body = _deploy(kind="config")
    del body["time"]
    assert client.post("/api/v1/changes", json=body, headers=AUTH).status_code == 201
    listed = client.get("/api/v1/changes", headers=AUTH).json()["changes"]
    assert [c["kind"] for c in listed] == ["config"]


def test_stored_change_source_filters_services_and_window_newest_first(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rootward.db'}"
    upgrade(url)
    settings = load_settings(data_dir=tmp_path, database={"url": url}, intake={"token": TOKEN})
    with TestClient(create_app(settings)) as client:
        for hour, service in ((10, "payment"), (12, "payment"), (11, "cart"), (3, "payment")):
            body = _deploy(service=service, time=f"2026-03-14T{hour:02d}:00:00Z")
            assert client.post("/api/v1/changes", json=body, headers=AUTH).status_code == 201
    engine = make_engine(url)
    source = StoredChangeSource(make_session_factory(engine))
    start = datetime(2026, 3, 14, 9, tzinfo=UTC)
    changes = source.recent(["payment"], start, start + timedelta(hours=4))
    assert [c.time.hour for c in changes] == [12, 10]
    assert {c.service for c in source.recent(None, start, start + timedelta(hours=4))} == {"payment", "cart"}
    engine.dispose()
