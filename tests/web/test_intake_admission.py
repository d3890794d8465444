"""Issue 14, defect 2: one unstorable alert is refused alone, on SQLite and PostgreSQL alike.

Each case posts 100 valid alerts and one bad one and asserts what the sender
sees (status, the rejection naming index and field) and what is stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from rootward.ingest.admission import ADJUSTED_ANNOTATION
from rootward.settings import load_settings
from rootward.store.alerts import AlertRow
from rootward.web.app import create_app

AUTH = {"Authorization": "Bearer t0ken"}
AM = "/api/v1/alerts/alertmanager"


@pytest.fixture
def client(migrated_db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    settings = load_settings(
        data_dir=tmp_path, database={"url": migrated_db_url}, intake={"token": "t0ken"}, runtime={"workers": 0}
    )
    with TestClient(create_app(settings)) as c:
        yield c


def am_alert(i: int, **labels: str) -> dict[str, Any]:
    return {
        "status": "firing",
        "labels": {"alertname": "HighErrorRate", "service": "checkout", "severity": "warning", "pod": f"p{i}"} | labels,
        "annotations": {"summary": "5xx above 5%"},
        "startsAt": "2026-03-01T11:58:00Z",
        "fingerprint": f"fp{i}",
    }


def hundred_and(bad: dict[str, Any]) -> dict[str, Any]:
    return {"version": "4", "status": "firing", "alerts": [am_alert(i) for i in range(100)] + [bad]}


def stored(client: TestClient) -> list[AlertRow]:
    with client.app.state.sessions() as s:  # type: ignore[attr-defined]
        return list(s.scalars(select(AlertRow).order_by(AlertRow.fingerprint)))


def stored_count(client: TestClient) -> int:
    with client.app.state.sessions() as s:  # type: ignore[attr-defined]
        return int(s.scalar(select(func.count()).select_from(AlertRow)) or 0)


def test_over_long_service_rejects_that_alert_and_stores_the_other_hundred(client: TestClient) -> None:
    response = client.post(AM, json=hundred_and(am_alert(100, service="s" * 201)), headers=AUTH)
    assert response.status_code == 202
    body = response.json()
    assert body["accepted"] == 100 and [a["index"] for a in body["alerts"]] == list(range(100))
    [rejected] = body["rejected"]
    assert (rejected["index"], rejected["field"], rejected["status"]) == (100, "labels.service", 400)
    assert "201 characters; the store holds at most 200" in rejected["error"]
    assert stored_count(client) == 100
    # The sender retries nothing: the same body again is 100 duplicates and the same rejection.
    again = client.post(AM, json=hundred_and(am_alert(100, service="s" * 201)), headers=AUTH).json()
    assert {a["action"] for a in again["alerts"]} == {"duplicate"} and len(again["rejected"]) == 1


def test_over_long_fingerprint_rejects_that_alert_and_stores_the_other_hundred(client: TestClient) -> None:
    bad = {**am_alert(100), "fingerprint": "f" * 129}
    response = client.post(AM, json=hundred_and(bad), headers=AUTH)
    assert response.status_code == 202
    [rejected] = response.json()["rejected"]
    assert (rejected["index"], rejected["field"]) == (100, "fingerprint")
    assert "dedup key" in rejected["error"]
    assert stored_count(client) == 100


def test_over_long_alertname_is_stored_shortened_with_a_marker_and_kept_whole_in_labels(client: TestClient) -> None:
    name = "N" * 201
    response = client.post(AM, json=hundred_and(am_alert(100, alertname=name)), headers=AUTH)
    assert response.status_code == 202
    assert response.json()["accepted"] == 101 and "rejected" not in response.json()
    row = next(r for r in stored(client) if r.fingerprint == "fp100")
    assert len(row.name) == 200 and row.name == "N" * 195 + "…[+6]"
    assert row.labels["alertname"] == name


def test_nul_in_labels_is_removed_and_every_alert_stored(client: TestClient) -> None:
    bad = am_alert(100, service="check\x00out", team="pay\x00ments")
    response = client.post(AM, json=hundred_and(bad), headers=AUTH)
    assert response.status_code == 202 and response.json()["accepted"] == 101
    row = next(r for r in stored(client) if r.fingerprint == "fp100")
    assert (row.service, row.labels["team"]) == ("checkout", "payments")
    assert len({g["group_id"] for g in response.json()["alerts"]}) == 1  # it joined the others' group


def test_body_whose_every_alert_is_rejected_is_400_with_each_reason(client: TestClient) -> None:
    payload = {"alerts": [am_alert(0, service="s" * 300), {**am_alert(1), "fingerprint": "f" * 200}]}
    response = client.post(AM, json=payload, headers=AUTH)
    assert response.status_code == 400
    body = response.json()
    assert body["error"].startswith("invalid alertmanager payload: every alert was rejected")
    assert [(r["index"], r["field"]) for r in body["rejected"]] == [(0, "labels.service"), (1, "fingerprint")]
    assert [f["field"] for f in body["fields"]] == ["alerts.0.labels.service", "alerts.1.fingerprint"]
    assert stored_count(client) == 0


def test_generic_alert_with_over_long_service_field_is_rejected_by_name(client: TestClient) -> None:
    alerts = [{"name": "A", "service": "api"}, {"name": "B", "service": "x" * 201}]
    response = client.post("/api/v1/alerts", json=alerts, headers=AUTH)
    assert response.status_code == 202
    assert [(r["index"], r["field"]) for r in response.json()["rejected"]] == [(1, "service")]
    assert [r.service for r in stored(client)] == ["api"]


def test_start_time_outside_the_plausible_window_is_stored_as_receive_time_with_a_note(client: TestClient) -> None:
    alert = {**am_alert(0), "startsAt": "0001-01-01T00:00:01Z"}
    future = {**am_alert(1), "startsAt": "9999-12-31T23:59:59Z"}
    response = client.post(AM, json={"alerts": [alert, future]}, headers=AUTH)
    assert response.status_code == 202 and response.json()["accepted"] == 2
    for row in stored(client):
        assert abs((row.starts_at.replace(tzinfo=None) - row.first_seen.replace(tzinfo=None)).total_seconds()) < 1
        assert "is implausible; the receive time is used" in row.annotations[ADJUSTED_ANNOTATION]
    assert "0001-01-01" in stored(client)[0].annotations[ADJUSTED_ANNOTATION]


def test_value_the_database_refuses_after_admission_is_400_not_a_retry_forever(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy.exc import DataError

    import rootward.runtime.intake_writer as writer

    def refuse(*_args: object, **_kwargs: object) -> object:
        raise DataError("INSERT …", {}, Exception("value too long for type character varying(16)"))

    monkeypatch.setattr(writer, "accept_batches", refuse)
    response = client.post(AM, json=hundred_and(am_alert(100)), headers=AUTH)
    assert response.status_code == 400
    assert "the database refused a value (value too long" in response.json()["error"]
