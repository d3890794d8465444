"""The connector webhooks over HTTP: off until configured, signed or token-checked, stored through the router."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from rootward.ingest.signatures import hmac_hex
from rootward.settings import load_settings
from rootward.store.alerts import AlertGroupRow, AlertRow
from rootward.store.db import make_engine, make_session_factory
from rootward.web.app import create_app
from tests.ingest.test_connectors import GRAFANA, cloud_event, opsgenie, pagerduty_event

TOKEN = "t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
PD_SECRET = "pd-secret"


@pytest.fixture
def app_url(migrated_db_url: str, tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    settings = load_settings(
        data_dir=tmp_path,
        database={"url": migrated_db_url},
        runtime={"workers": 0},
        intake={
            "token": TOKEN,
            "pagerduty": {"signing_secrets": [PD_SECRET]},
            "opsgenie": {},
            "grafana": {},
            "keep": {},
            "cloudevents": {},
        },
    )
    with TestClient(create_app(settings)) as client:
        yield client, migrated_db_url


def _alerts(db_url: str) -> list[AlertRow]:
    with make_session_factory(make_engine(db_url))() as session:
        return list(session.scalars(select(AlertRow).order_by(AlertRow.first_seen)))


def _pd(client: TestClient, body: bytes, signature: str | None) -> object:
    headers = {"content-type": "application/json"} | ({"x-pagerduty-signature": signature} if signature else {})
    return client.post("/api/v1/alerts/pagerduty", content=body, headers=headers)


def test_a_signed_pagerduty_incident_is_stored_and_its_resolution_resolves_it(app_url: tuple[TestClient, str]) -> None:
    client, db_url = app_url
    fired = json.dumps(pagerduty_event()).encode()
    response = _pd(client, fired, f"v1={hmac_hex(PD_SECRET, fired)}")
    assert response.status_code == 202, response.text  # type: ignore[attr-defined]
    resolved = json.dumps(pagerduty_event("incident.resolved")).encode()
    assert _pd(client, resolved, f"v1={hmac_hex(PD_SECRET, resolved)}").status_code == 202  # type: ignore[attr-defined]
    [row] = _alerts(db_url)
    assert (row.source, row.service, row.status, row.count) == ("pagerduty", "checkout", "resolved", 2)


@pytest.mark.parametrize("signature", [None, "v1=00ff", "v0=abc"])
def test_an_unsigned_or_badly_signed_pagerduty_delivery_is_a_401(
    app_url: tuple[TestClient, str], signature: str | None
) -> None:
    client, db_url = app_url
    response = _pd(client, json.dumps(pagerduty_event()).encode(), signature)
    assert response.status_code == 401 and "pagerduty signature" in response.json()["error"]  # type: ignore[attr-defined]
    assert _alerts(db_url) == []


def test_a_pagerduty_ping_is_accepted_and_stores_nothing(app_url: tuple[TestClient, str]) -> None:
    client, db_url = app_url
    body = json.dumps(pagerduty_event("pagey.ping")).encode()
    response = _pd(client, body, f"v1={hmac_hex(PD_SECRET, body)}")
    assert response.status_code == 202 and response.json()["alerts"] == []  # type: ignore[attr-defined]
    assert _alerts(db_url) == []


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("opsgenie", opsgenie().decode()),
        ("grafana", json.dumps(GRAFANA)),
        ("keep", json.dumps({"name": "DiskFull", "service": "search", "severity": "critical", "fingerprint": "k1"})),
    ],
)
def test_token_checked_connectors_store_with_the_token_and_refuse_without(
    app_url: tuple[TestClient, str], path: str, body: str
) -> None:
    client, db_url = app_url
    url = f"/api/v1/alerts/{path}"
    assert client.post(url, content=body, headers={"content-type": "application/json"}).status_code == 401
    response = client.post(url, content=body, headers={**AUTH, "content-type": "application/json"})
    assert response.status_code == 202, response.text
    [row] = _alerts(db_url)
    assert row.source == path and response.json()["alerts"][0]["id"] == row.id


def test_cloudevents_structured_and_binary_join_one_group(app_url: tuple[TestClient, str]) -> None:
    client, db_url = app_url
    event = cloud_event()
    structured = client.post(
        "/api/v1/alerts/cloudevents",
        content=json.dumps(event),
        headers={**AUTH, "content-type": "application/cloudevents+json; charset=utf-8"},
    )
    assert structured.status_code == 202, structured.text
    headers = {f"ce-{k}": str(v) for k, v in event.items() if k not in ("data", "datacontenttype")}
    headers["ce-id"] = "another-delivery"
    binary = client.post(
        "/api/v1/alerts/cloudevents",
        content=json.dumps(event["data"]),
        headers={**AUTH, **headers, "content-type": "application/json"},
    )
    assert binary.status_code == 202, binary.text
    [row] = _alerts(db_url)  # the same alert, deduplicated by its fingerprint
    assert row.count == 2 and row.service == "checkout"
    with make_session_factory(make_engine(db_url))() as session:
        assert len(list(session.scalars(select(AlertGroupRow)))) == 1


def test_a_connector_without_its_section_is_a_404(migrated_db_url: str, tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, database={"url": migrated_db_url}, intake={"token": TOKEN})
    with TestClient(create_app(settings)) as client:
        response = client.post("/api/v1/alerts/opsgenie", content=opsgenie(), headers=AUTH)
    assert response.status_code == 404 and "intake.opsgenie" in response.json()["error"]


def test_a_bad_payload_is_a_400_naming_the_field(app_url: tuple[TestClient, str]) -> None:
    client, _db_url = app_url
    response = client.post(
        "/api/v1/alerts/opsgenie", content=opsgenie(message=""), headers={**AUTH, "content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["fields"][0]["field"] == "alert.message"
