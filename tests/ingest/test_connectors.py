"""Each intake connector's payload, as its system sends it, to the same `Alert`."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from pydantic import SecretStr

from rootward.domain.alert import Severity
from rootward.ingest.cloudevents import BATCH, STRUCTURED, CloudEventsSettings, read_cloudevents
from rootward.ingest.grafana import GrafanaSettings, read_grafana
from rootward.ingest.keep import KeepSettings, read_keep
from rootward.ingest.opsgenie import OpsgenieSettings, read_opsgenie
from rootward.ingest.pagerduty import PagerDutySettings, read_pagerduty
from rootward.ingest.payloads import PayloadError
from rootward.ingest.signatures import any_signature_matches, hmac_hex

NOW = datetime(2026, 11, 2, 14, 30, tzinfo=UTC)
PD = PagerDutySettings(signing_secrets=[SecretStr("pd-secret")])


def pagerduty_event(event_type: str = "incident.triggered", **data: object) -> dict[str, object]:
    """A v3 webhook delivery as PagerDuty documents it."""
    incident = {
        "id": "Q2DJ8RV3PGO4MN",
        "type": "incident",
        "self": "https://api.pagerduty.com/incidents/Q2DJ8RV3PGO4MN",
        "html_url": "https://acme.pagerduty.com/incidents/Q2DJ8RV3PGO4MN",
        "number": 1234,
        "status": "triggered",
        "incident_key": "d3640fbd41094207a1c11e58e46b1662",
        "created_at": "2026-11-02T14:28:00Z",
        "title": "checkout 5xx above 5%",
        "service": {"html_url": "https://acme.pagerduty.com/services/PF9KMXH", "id": "PF9KMXH",
                    "summary": "checkout", "type": "service_reference"},
        "urgency": "high",
        "priority": None,
        **data,
    }  # fmt: skip
    return {
        "event": {
            "id": "01DEN1HNLBC1VITK192ETJ1MPJ",
            "event_type": event_type,
            "resource_type": "incident",
            "occurred_at": "2026-11-02T14:28:30.000Z",
            "agent": {"id": "PLH1HKV", "type": "user_reference"},
            "client": None,
            "data": incident,
        }
    }


def test_a_pagerduty_incident_triggered_then_resolved_is_one_alert_opened_then_resolved() -> None:
    fired = read_pagerduty(json.dumps(pagerduty_event()).encode(), NOW, PD).alerts
    resolved = read_pagerduty(json.dumps(pagerduty_event("incident.resolved")).encode(), NOW, PD).alerts
    assert [(a.name, a.service, a.severity, a.status) for a in fired] == [
        ("checkout 5xx above 5%", "checkout", Severity.P1, "firing")
    ]
    assert resolved[0].status == "resolved" and resolved[0].fingerprint == fired[0].fingerprint
    assert fired[0].generator_url.endswith("/incidents/Q2DJ8RV3PGO4MN")


def test_a_pagerduty_priority_wins_over_urgency_and_other_events_store_nothing() -> None:
    p0 = pagerduty_event(priority={"id": "P", "summary": "P0", "type": "priority"})
    assert read_pagerduty(json.dumps(p0).encode(), NOW, PD).alerts[0].severity == Severity.P0
    for event_type in ("incident.acknowledged", "incident.annotated", "pagey.ping"):
        batch = read_pagerduty(json.dumps(pagerduty_event(event_type)).encode(), NOW, PD)
        assert batch.alerts == [] and batch.rejected == []


def test_a_pagerduty_incident_without_a_title_is_rejected_by_field() -> None:
    body = json.dumps(pagerduty_event(title="")).encode()
    assert [r.path for r in read_pagerduty(body, NOW, PD).rejected] == ["event.data.title"]


def test_pagerduty_signatures_accept_any_rotated_secret_and_nothing_else() -> None:
    body = b'{"event": {}}'
    header = f"v1={hmac_hex('old', body)},v1={hmac_hex('new', body)}"
    assert any_signature_matches(body, header, ["new"])
    assert not any_signature_matches(body, header, ["other"])
    assert not any_signature_matches(body + b" ", header, ["new"])
    assert not any_signature_matches(body, None, ["new"])


def opsgenie(action: str = "Create", **alert: object) -> bytes:
    body = {
        "action": action,
        "alert": {
            "alertId": "9e6e0f1c-2b4f-4a7e-9a8b-1f2e3d4c5b6a-1604505600000",
            "message": "Database connections exhausted",
            "tags": ["service:payment-db", "team:payments"],
            "tinyId": "1791",
            "entity": "",
            "alias": "payment-db-connections",
            "createdAt": 1793629680000,
            "updatedAt": 1793629740000,
            "username": "System",
            "userId": "",
            "priority": "P2",
            "details": {},
            **alert,
        },
        "source": {"name": "", "type": "API"},
        "integrationName": "rootward",
        "integrationId": "8c7e6d5f-4a3b-2c1d-0e9f-8a7b6c5d4e3f",
        "integrationType": "Webhook",
    }
    return json.dumps(body).encode()


def test_opsgenie_create_and_close_map_to_firing_and_resolved_by_alias() -> None:
    settings = OpsgenieSettings()
    [fired] = read_opsgenie(opsgenie(), NOW, settings).alerts
    [closed] = read_opsgenie(opsgenie("Close"), NOW, settings).alerts
    assert (fired.service, fired.severity, fired.status) == ("payment-db", Severity.P1, "firing")
    assert fired.starts_at == datetime.fromtimestamp(1793629680, UTC)
    assert closed.status == "resolved" and closed.fingerprint == fired.fingerprint == "opsgenie:payment-db-connections"
    assert read_opsgenie(opsgenie("AddNote"), NOW, settings).alerts == []


def test_opsgenie_service_comes_from_the_detail_before_the_tag() -> None:
    [alert] = read_opsgenie(opsgenie(details={"service": "checkout"}), NOW, OpsgenieSettings()).alerts
    assert alert.service == "checkout"


GRAFANA = {
    "receiver": "rootward",
    "status": "firing",
    "orgId": 1,
    "alerts": [
        {
            "status": "firing",
            "labels": {"alertname": "HighLatency", "grafana_folder": "shop", "service": "cart", "severity": "critical"},
            "annotations": {"summary": "p99 above 2 s"},
            "startsAt": "2026-11-02T14:27:00Z",
            "endsAt": "0001-01-01T00:00:00Z",
            "generatorURL": "http://grafana:3000/alerting/grafana/abc/view",
            "fingerprint": "57c6d9296de2ad39",
            "silenceURL": "http://grafana:3000/alerting/silence/new",
            "dashboardURL": "http://grafana:3000/d/shop",
            "panelURL": "http://grafana:3000/d/shop?viewPanel=2",
            "values": {"B": 2.4},
            "valueString": "[ var='B' labels={service=cart} value=2.4 ]",
        }
    ],
    "groupLabels": {"alertname": "HighLatency"},
    "commonLabels": {"alertname": "HighLatency"},
    "commonAnnotations": {},
    "externalURL": "http://grafana:3000/",
    "version": "1",
    "groupKey": '{}:{alertname="HighLatency"}',
    "truncatedAlerts": 0,
    "title": "[FIRING:1] HighLatency",
    "state": "alerting",
    "message": "...",
}


def test_grafana_unified_alerts_keep_their_fingerprint_and_dashboard_links() -> None:
    [alert] = read_grafana(json.dumps(GRAFANA).encode(), NOW, GrafanaSettings()).alerts
    assert (alert.name, alert.service, alert.severity, alert.fingerprint) == (
        "HighLatency", "cart", Severity.P1, "57c6d9296de2ad39"
    )  # fmt: skip
    assert alert.annotations["grafana_panel"].endswith("viewPanel=2") and alert.ends_at is None
    assert alert.labels["source"] == "grafana"


def test_keep_alerts_map_status_and_severity_and_skip_acknowledged_ones() -> None:
    alerts = [
        {"id": "1", "name": "DiskFull", "status": "firing", "severity": "high", "service": "search",
         "environment": "prod", "fingerprint": "kfp-1", "lastReceived": "2026-11-02T14:20:00.000Z",
         "source": ["prometheus"], "message": "disk 95%", "labels": {"node": "n1", "replicas": 3}},
        {"id": "2", "name": "Old", "status": "acknowledged", "severity": "info", "fingerprint": "kfp-2"},
        {"id": "3", "name": "DiskFull", "status": "resolved", "severity": "high", "service": "search",
         "fingerprint": "kfp-1"},
    ]  # fmt: skip
    batch = read_keep(json.dumps(alerts).encode(), NOW, KeepSettings())
    assert [(a.status, a.severity, a.fingerprint) for a in batch.alerts] == [
        ("firing", Severity.P1, "keep:kfp-1"),
        ("resolved", Severity.P1, "keep:kfp-1"),
    ]
    assert batch.indexes == [0, 2] and batch.alerts[0].labels["replicas"] == "3"


def test_keep_rejects_an_alert_without_a_name_and_names_its_index() -> None:
    batch = read_keep(json.dumps([{"status": "firing"}, {"name": "A"}]).encode(), NOW, KeepSettings())
    assert [a.name for a in batch.alerts] == ["A"] and [(r.index, r.path) for r in batch.rejected] == [(0, "0.name")]


def cloud_event(**over: object) -> dict[str, object]:
    return {
        "specversion": "1.0",
        "id": "c7f7e1b4",
        "source": "//monitoring.example.org/checks",
        "type": "org.example.alert.firing",
        "subject": "checkout",
        "time": "2026-11-02T14:25:00Z",
        "datacontenttype": "application/json",
        "data": {"name": "HighErrorRate", "severity": "critical", "labels": {"region": "eu"}},
        **over,
    }


def test_cloudevents_in_all_three_modes_give_the_same_alert() -> None:
    settings = CloudEventsSettings()
    event = cloud_event()
    structured = read_cloudevents(json.dumps(event).encode(), STRUCTURED, {}, NOW, settings).alerts
    batched = read_cloudevents(json.dumps([event]).encode(), BATCH, {}, NOW, settings).alerts
    headers = {f"ce-{k}": str(v) for k, v in event.items() if k not in ("data", "datacontenttype")}
    binary = read_cloudevents(json.dumps(event["data"]).encode(), "application/json", headers, NOW, settings).alerts
    assert structured == batched == binary
    [alert] = structured
    assert (alert.name, alert.service, alert.severity, alert.status) == (
        "HighErrorRate",
        "checkout",
        Severity.P1,
        "firing",
    )
    assert alert.starts_at == datetime(2026, 11, 2, 14, 25, tzinfo=UTC)
    assert alert.labels["source"] == "//monitoring.example.org/checks"


def test_a_cloudevent_type_ending_in_resolved_resolves_and_unwanted_types_are_skipped() -> None:
    settings = CloudEventsSettings(types=["org.example.alert."])
    resolved = cloud_event(type="org.example.alert.resolved")
    other = cloud_event(type="org.example.build.finished", id="x")
    batch = read_cloudevents(json.dumps([other, resolved]).encode(), BATCH, {}, NOW, settings)
    assert [a.status for a in batch.alerts] == ["resolved"] and batch.indexes == [1]


def test_a_binary_cloudevent_without_its_required_headers_is_a_payload_error() -> None:
    with pytest.raises(PayloadError, match="ce-specversion"):
        read_cloudevents(b"{}", "application/json", {"ce-id": "1"}, NOW, CloudEventsSettings())


def test_a_cloudevent_that_is_not_1_0_is_rejected_by_field() -> None:
    batch = read_cloudevents(
        json.dumps(cloud_event(specversion="0.3")).encode(), STRUCTURED, {}, NOW, CloudEventsSettings()
    )
    assert [r.path for r in batch.rejected] == ["specversion"]
