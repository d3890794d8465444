from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from rootward.settings import Settings, load_settings
from rootward.store.alerts import AlertGroupRow, AlertRow
from rootward.store.audit import verify_chain
from rootward.store.jobs import Job
from rootward.web.app import create_app

TOKEN = "t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def make_settings(db_url: str, tmp_path: Path, **intake: Any) -> Settings:
    return load_settings(
        data_dir=tmp_path,
        database={"url": db_url},
        intake={"token": TOKEN, **intake},
        runtime={"workers": 0},
    )


@pytest.fixture
def client(migrated_db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(migrated_db_url, tmp_path, max_body_bytes=4096))) as c:
        yield c


def am_payload(fingerprint: str = "fp1", service: str = "checkout") -> dict[str, Any]:
    return {
        "version": "4",
        "groupKey": '{}:{alertname="HighErrorRate"}',
        "status": "firing",
        "receiver": "rootward",
        "groupLabels": {"alertname": "HighErrorRate"},
        "commonLabels": {},
        "commonAnnotations": {},
        "externalURL": "http://alertmanager:9093",
        "alerts": [
            {
                "status": "firing",
                "labels": {"alertname": "HighErrorRate", "service": service, "severity": "critical"},
                "annotations": {"summary": "5xx above 5%"},
                "startsAt": "2026-03-01T11:58:00Z",
                "endsAt": "0001-01-01T00:00:00Z",
                "generatorURL": "http://prometheus/graph",
                "fingerprint": fingerprint,
            }
        ],
    }


def counts(client: TestClient) -> tuple[int, int, int]:
    with client.app.state.sessions() as s:  # type: ignore[attr-defined]
        return (
            int(s.scalar(select(func.count()).select_from(AlertRow)) or 0),
            int(s.scalar(select(func.count()).select_from(AlertGroupRow)) or 0),
            int(s.scalar(select(func.count()).select_from(Job)) or 0),
        )


def test_same_alertmanager_payload_twice_is_one_alert_and_one_group(client: TestClient) -> None:
    first = client.post("/api/v1/alerts/alertmanager", json=am_payload(), headers=AUTH)
    second = client.post("/api/v1/alerts/alertmanager", json=am_payload(), headers=AUTH)
    assert first.status_code == second.status_code == 202
    body = first.json()
    assert body["accepted"] == 1 and body["alerts"][0]["action"] == "new_group"
    assert second.json()["alerts"][0] == {**body["alerts"][0], "action": "duplicate"}
    assert body["groups"] == [body["alerts"][0]["group_id"]]
    assert counts(client) == (1, 1, 1)


def test_generic_alerts_for_seven_services_make_seven_groups(client: TestClient) -> None:
    for batch in range(10):
        alerts = [
            {"name": f"Alert{i}", "service": f"svc{i % 7}", "severity": "critical"}
            for i in range(batch * 20, batch * 20 + 20)
        ]
        assert client.post("/api/v1/alerts", json=alerts, headers=AUTH).status_code == 202
    alerts_n, groups, jobs = counts(client)
    assert (alerts_n, groups) == (200, 7)
    assert jobs <= 7
    with client.app.state.sessions() as s:  # type: ignore[attr-defined]
        assert verify_chain(s).ok


def test_generic_list_answers_with_every_alert_and_group_id(client: TestClient) -> None:
    alerts = [{"name": "A", "service": "api"}, {"name": "B", "service": "db", "severity": "info"}]
    body = client.post("/api/v1/alerts", json=alerts, headers=AUTH).json()
    assert body["accepted"] == 2
    assert len(body["groups"]) == 2
    assert all(a["id"] and a["group_id"] for a in body["alerts"])


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "missing bearer token"),
        ({"Authorization": "Bearer nope"}, "invalid bearer token"),
        ({"Authorization": f"Basic {TOKEN}"}, "invalid bearer token"),
    ],
)
def test_missing_or_wrong_token_is_401(client: TestClient, headers: dict[str, str], message: str) -> None:
    response = client.post("/api/v1/alerts/alertmanager", json=am_payload(), headers=headers)
    assert response.status_code == 401
    assert message in response.json()["error"]
    assert response.headers["www-authenticate"] == "Bearer"
    assert counts(client) == (0, 0, 0)


def test_wrong_content_type_is_415(client: TestClient) -> None:
    response = client.post(
        "/api/v1/alerts", content=b"name=x", headers={**AUTH, "Content-Type": "application/x-www-form-urlencoded"}
    )
    assert response.status_code == 415
    assert "application/json" in response.json()["error"]


def test_body_over_the_limit_is_413(client: TestClient) -> None:
    big = am_payload()
    big["alerts"][0]["annotations"]["description"] = "x" * 5000
    response = client.post("/api/v1/alerts/alertmanager", json=big, headers=AUTH)
    assert response.status_code == 413
    assert "intake.max_body_bytes (4096)" in response.json()["error"]


def test_chunked_body_over_the_limit_is_413(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"name": "A", "annotations": {"d": "'
        for _ in range(10):
            yield b"x" * 1000
        yield b'"}}'

    response = client.post("/api/v1/alerts", content=chunks(), headers={**AUTH, "Content-Type": "application/json"})
    assert response.status_code == 413


def test_malformed_json_is_400(client: TestClient) -> None:
    response = client.post(
        "/api/v1/alerts/alertmanager", content=b'{"alerts": [', headers={**AUTH, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert "Invalid JSON" in response.json()["error"]


def test_schema_error_in_one_alert_rejects_that_alert_and_stores_the_other(client: TestClient) -> None:
    payload = am_payload()
    good = dict(payload["alerts"][0])
    bad = {**good, "fingerprint": "fp2", "status": "burning"}
    payload["alerts"] = [good, bad]
    response = client.post(
        "/api/v1/alerts/alertmanager",
        content=orjson.dumps(payload),
        headers={**AUTH, "Content-Type": "application/json; charset=utf-8"},
    )
    assert response.status_code == 202
    body = response.json()
    assert body["accepted"] == 1 and body["alerts"][0]["index"] == 0
    assert [(r["index"], r["field"], r["status"]) for r in body["rejected"]] == [(1, "status", 400)]
    assert counts(client) == (1, 1, 1)


def test_schema_error_in_every_alert_is_400_naming_the_field_and_nothing_is_stored(client: TestClient) -> None:
    payload = am_payload()
    payload["alerts"] = [{**payload["alerts"][0], "status": "burning"}]
    response = client.post("/api/v1/alerts/alertmanager", json=payload, headers=AUTH)
    assert response.status_code == 400
    assert response.json()["fields"][0]["field"] == "alerts.0.status"
    assert "alerts.0.status" in response.json()["error"]
    assert counts(client) == (0, 0, 0)


def test_auth_none_accepts_without_a_token(migrated_db_url: str, tmp_path: Path) -> None:
    settings = make_settings(migrated_db_url, tmp_path, auth="none")
    with TestClient(create_app(settings)) as c:
        assert c.post("/api/v1/alerts", json={"name": "A"}).status_code == 202


def test_missing_token_is_generated_once_and_kept(migrated_db_url: str, tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, database={"url": migrated_db_url}, runtime={"workers": 0})
    first = create_app(settings).state.intake_token
    assert first and (tmp_path / "intake-token").read_text().strip() == first
    assert create_app(settings).state.intake_token == first
    assert (tmp_path / "intake-token").stat().st_mode & 0o077 == 0


def test_default_limit_is_one_mebibyte(migrated_db_url: str, tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(migrated_db_url, tmp_path))) as c:
        just_under = {"name": "Big", "annotations": {"log_excerpt": "x" * 1_000_000}}
        assert c.post("/api/v1/alerts", json=just_under, headers=AUTH).status_code == 202
        over = {"name": "Big", "annotations": {"log_excerpt": "x" * 1_100_000}}
        response = c.post("/api/v1/alerts", json=over, headers=AUTH)
        assert response.status_code == 413
        assert "(1048576)" in response.json()["error"]
