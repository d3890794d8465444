from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest

from rootward.domain.alert import Severity
from rootward.ingest.payloads import PayloadError, parse_alertmanager, parse_generic

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def am_body(**alert: object) -> bytes:
    item: dict[str, object] = {
        "status": "firing",
        "labels": {"alertname": "HighErrorRate", "service": "checkout", "severity": "critical"},
        "annotations": {"summary": "5xx above 5%"},
        "startsAt": "2026-03-01T11:58:00Z",
        "endsAt": "0001-01-01T00:00:00Z",
        "generatorURL": "http://prom/graph",
        "fingerprint": "c0ffee",
    }
    item.update(alert)
    # No truncatedAlerts, notification_reason or routeLabels: they are optional.
    return orjson.dumps({"version": "4", "groupKey": "{}:{}", "status": "firing", "receiver": "rw", "alerts": [item]})


def test_alertmanager_payload_without_optional_fields_parses() -> None:
    [alert] = parse_alertmanager(am_body())
    assert (alert.fingerprint, alert.service, alert.severity, alert.ends_at) == (
        "c0ffee",
        "checkout",
        Severity.P1,
        None,
    )


def test_alertmanager_alert_without_fingerprint_gets_a_stable_label_hash() -> None:
    body = am_body(fingerprint=None)
    assert parse_alertmanager(body)[0].fingerprint == parse_alertmanager(body)[0].fingerprint != "c0ffee"


def test_schema_errors_name_the_field() -> None:
    with pytest.raises(PayloadError) as err:
        parse_alertmanager(am_body(status="burning", labels=None))
    fields = {e.field for e in err.value.errors}
    assert fields == {"alerts.0.status", "alerts.0.labels"}


def test_malformed_json_is_a_payload_error() -> None:
    with pytest.raises(PayloadError, match="Invalid JSON"):
        parse_alertmanager(b'{"alerts": [')


def test_generic_alert_single_or_list() -> None:
    [one] = parse_generic(b'{"name": "DiskFull", "service": "db", "severity": "page"}', NOW)
    assert (one.service, one.severity, one.starts_at, one.labels["alertname"]) == ("db", Severity.P0, NOW, "DiskFull")
    many = parse_generic(orjson.dumps([{"name": "A", "labels": {"job": "api"}}, {"name": "B"}]), NOW)
    assert [a.service for a in many] == ["api", "unknown"]


def test_generic_alert_unknown_field_is_rejected_by_name() -> None:
    with pytest.raises(PayloadError) as err:
        parse_generic(b'{"name": "A", "sevrity": "critical"}', NOW)
    assert err.value.errors[0].field == "sevrity"


def test_too_many_or_no_alerts_are_rejected() -> None:
    with pytest.raises(PayloadError, match="limit is 1"):
        parse_generic(b'[{"name": "A"}, {"name": "B"}]', NOW, max_alerts=1)
    with pytest.raises(PayloadError, match="at least one alert"):
        parse_generic(b"[]", NOW)
