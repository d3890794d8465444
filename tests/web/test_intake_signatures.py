"""Grafana, Opsgenie and Keep deliveries checked by each system's own credential: accepted, 401 wrong, 401 missing,
and a replay refused (Grafana, timestamped) or deduplicated into the alert it repeats."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from rootward.ingest.signatures import hmac_hex
from rootward.settings import load_settings
from rootward.store.alerts import AlertRow
from rootward.store.db import make_engine, make_session_factory
from rootward.web.app import create_app
from tests.ingest.test_connectors import GRAFANA, opsgenie

INTAKE = "intake-t0ken"
GRAFANA_SECRET = "grafana-hmac-secret"
OPSGENIE_TOKEN = "og-shared-token"
KEEP_KEY = "keep-api-key"
JSON = {"content-type": "application/json"}
BODY = json.dumps(GRAFANA).encode()


def _client(db_url: str, tmp_path: Path, **connectors: object) -> TestClient:
    settings = load_settings(
        data_dir=tmp_path,
        database={"url": db_url},
        runtime={"workers": 0},
        intake={"token": INTAKE, **connectors},
    )
    return TestClient(create_app(settings))


@pytest.fixture
def signed(migrated_db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    connectors = {
        "grafana": {"hmac": {"secret": GRAFANA_SECRET, "timestamp_header": "X-Grafana-Alerting-Timestamp"}},
        "opsgenie": {"token": OPSGENIE_TOKEN},
        "keep": {"api_key": KEEP_KEY},
    }
    with _client(migrated_db_url, tmp_path, **connectors) as client:
        yield client


def _alerts(db_url: str) -> list[AlertRow]:
    with make_session_factory(make_engine(db_url))() as session:
        return list(session.scalars(select(AlertRow)))


def _grafana_headers(body: bytes, *, secret: str = GRAFANA_SECRET, at: int | None = None) -> dict[str, str]:
    ts = str(int(time.time()) if at is None else at)
    signature = hmac_hex(secret, f"{ts}:".encode() + body)
    return {**JSON, "X-Grafana-Alerting-Signature": signature, "X-Grafana-Alerting-Timestamp": ts}


def _basic(user: str, password: str) -> dict[str, str]:
    return {"authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def test_a_grafana_delivery_signed_with_its_timestamp_is_stored(signed: TestClient, migrated_db_url: str) -> None:
    response = signed.post("/api/v1/alerts/grafana", content=BODY, headers=_grafana_headers(BODY))
    assert response.status_code == 202, response.text
    [row] = _alerts(migrated_db_url)
    assert row.source == "grafana"


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("wrong secret", "invalid grafana signature (X-Grafana-Alerting-Signature)"),
        ("body changed", "invalid grafana signature (X-Grafana-Alerting-Signature)"),
        ("no signature", "missing grafana signature (X-Grafana-Alerting-Signature)"),
        ("no timestamp", "missing or malformed grafana timestamp (X-Grafana-Alerting-Timestamp)"),
        ("stale", "stale grafana delivery: timestamp over 300 s from now (a replay?)"),
        ("intake token only", "missing grafana signature (X-Grafana-Alerting-Signature)"),
    ],
)
def test_a_grafana_delivery_without_a_good_fresh_signature_is_a_401(
    signed: TestClient, migrated_db_url: str, case: str, message: str
) -> None:
    headers = _grafana_headers(BODY)
    body = BODY
    if case == "wrong secret":
        headers = _grafana_headers(BODY, secret="not-the-secret")
    elif case == "body changed":
        body = BODY.replace(b"firing", b"resolved", 1)
    elif case == "no signature":
        del headers["X-Grafana-Alerting-Signature"]
    elif case == "no timestamp":
        del headers["X-Grafana-Alerting-Timestamp"]
    elif case == "stale":
        headers = _grafana_headers(BODY, at=int(time.time()) - 600)
    elif case == "intake token only":
        headers = {**JSON, "authorization": f"Bearer {INTAKE}"}
    response = signed.post("/api/v1/alerts/grafana", content=body, headers=headers)
    assert response.status_code == 401 and response.json()["error"] == message
    assert _alerts(migrated_db_url) == []


def test_a_replayed_grafana_delivery_is_a_401_and_a_new_one_joins_its_alert(
    signed: TestClient, migrated_db_url: str
) -> None:
    headers = _grafana_headers(BODY)
    assert signed.post("/api/v1/alerts/grafana", content=BODY, headers=headers).status_code == 202
    replay = signed.post("/api/v1/alerts/grafana", content=BODY, headers=headers)
    assert replay.status_code == 401 and "replayed grafana delivery" in replay.json()["error"]
    later = _grafana_headers(BODY, at=int(time.time()) + 1)  # Grafana's next notification of the same alert
    assert signed.post("/api/v1/alerts/grafana", content=BODY, headers=later).status_code == 202
    [row] = _alerts(migrated_db_url)
    assert row.count == 2


def test_grafana_without_a_timestamp_header_checks_the_body_signature(migrated_db_url: str, tmp_path: Path) -> None:
    with _client(migrated_db_url, tmp_path, grafana={"hmac": {"secret": GRAFANA_SECRET}}) as client:
        good = {**JSON, "X-Grafana-Alerting-Signature": hmac_hex(GRAFANA_SECRET, BODY)}
        bad = {**JSON, "X-Grafana-Alerting-Signature": hmac_hex("other", BODY)}
        assert client.post("/api/v1/alerts/grafana", content=BODY, headers=good).status_code == 202
        assert client.post("/api/v1/alerts/grafana", content=BODY, headers=bad).status_code == 401


def test_grafana_basic_auth_is_checked_instead_of_the_intake_token(migrated_db_url: str, tmp_path: Path) -> None:
    auth = {"basic_auth": {"username": "grafana", "password": "s3cret"}}
    with _client(migrated_db_url, tmp_path, grafana=auth) as client:
        url = "/api/v1/alerts/grafana"
        assert client.post(url, content=BODY, headers={**JSON, **_basic("grafana", "s3cret")}).status_code == 202
        wrong = client.post(url, content=BODY, headers={**JSON, **_basic("grafana", "guess")})
        assert wrong.status_code == 401 and wrong.json()["error"] == "invalid grafana basic auth credentials"
        missing = client.post(url, content=BODY, headers=JSON)
        assert missing.status_code == 401 and "missing grafana basic auth" in missing.json()["error"]


@pytest.mark.parametrize(
    ("headers", "status", "message"),
    [
        ({"X-Rootward-Token": OPSGENIE_TOKEN}, 202, None),
        ({"X-Rootward-Token": "guessed"}, 401, "invalid opsgenie token (X-Rootward-Token)"),
        ({}, 401, "missing opsgenie token header (X-Rootward-Token)"),
        ({"authorization": f"Bearer {INTAKE}"}, 401, "missing opsgenie token header (X-Rootward-Token)"),
    ],
)
def test_opsgenie_is_checked_by_its_custom_token_header(
    signed: TestClient, migrated_db_url: str, headers: dict[str, str], status: int, message: str | None
) -> None:
    response = signed.post("/api/v1/alerts/opsgenie", content=opsgenie(), headers={**JSON, **headers})
    assert response.status_code == status, response.text
    if message:
        assert response.json()["error"] == message
    assert len(_alerts(migrated_db_url)) == (1 if status == 202 else 0)


def test_a_resent_opsgenie_create_is_deduplicated_into_one_alert(signed: TestClient, migrated_db_url: str) -> None:
    headers = {**JSON, "X-Rootward-Token": OPSGENIE_TOKEN}
    for _ in range(2):
        assert signed.post("/api/v1/alerts/opsgenie", content=opsgenie(), headers=headers).status_code == 202
    [row] = _alerts(migrated_db_url)
    assert row.count == 2


def test_opsgenie_basic_auth(migrated_db_url: str, tmp_path: Path) -> None:
    auth = {"basic_auth": {"username": "opsgenie", "password": "pw"}}
    with _client(migrated_db_url, tmp_path, opsgenie=auth) as client:
        url = "/api/v1/alerts/opsgenie"
        assert client.post(url, content=opsgenie(), headers={**JSON, **_basic("opsgenie", "pw")}).status_code == 202
        assert client.post(url, content=opsgenie(), headers={**JSON, **_basic("admin", "pw")}).status_code == 401
        assert client.post(url, content=opsgenie(), headers={**JSON, "authorization": "Basic !!"}).status_code == 401


@pytest.mark.parametrize(
    ("headers", "status", "message"),
    [
        ({"x-api-key": KEEP_KEY}, 202, None),
        ({"X-API-KEY": KEEP_KEY[:-1]}, 401, "invalid keep API key (X-API-KEY)"),
        ({}, 401, "missing keep API key header (X-API-KEY)"),
    ],
)
def test_keep_is_checked_by_its_api_key_header(
    signed: TestClient, migrated_db_url: str, headers: dict[str, str], status: int, message: str | None
) -> None:
    body = json.dumps({"name": "DiskFull", "service": "search", "severity": "critical", "fingerprint": "k1"})
    response = signed.post("/api/v1/alerts/keep", content=body, headers={**JSON, **headers})
    assert response.status_code == status, response.text
    if message:
        assert response.json()["error"] == message
    assert len(_alerts(migrated_db_url)) == (1 if status == 202 else 0)
