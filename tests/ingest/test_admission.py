from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
import pytest

from rootward.domain.alert_time import PLAUSIBLE_FUTURE, PLAUSIBLE_PAST
from rootward.ingest.admission import ADJUSTED_ANNOTATION, StoreLimits, truncated
from rootward.ingest.payloads import read_alertmanager, read_generic

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LIMITS = StoreLimits(name=20, service=10, fingerprint=8)


def am(*alerts: dict[str, object]) -> bytes:
    return orjson.dumps({"version": "4", "alerts": list(alerts)})


def alert(**over: object) -> dict[str, object]:
    item: dict[str, object] = {
        "status": "firing",
        "labels": {"alertname": "HighErrorRate", "service": "checkout", "severity": "page"},
        "startsAt": "2026-03-01T11:58:00Z",
        "fingerprint": "fp1",
    }
    item.update(over)
    return item


@pytest.mark.parametrize("length", [21, 99, 1000, 10**5])
def test_truncated_value_fills_the_limit_exactly_and_says_how_much_was_cut(length: int) -> None:
    value = truncated("n" * length, 20)
    kept = value.index("…")
    assert len(value) == 20 and value.endswith(f"…[+{length - kept}]")


def test_value_within_the_limit_is_unchanged() -> None:
    assert truncated("n" * 20, 20) == "n" * 20


def test_identity_over_the_limit_is_rejected_with_its_index_and_field_the_rest_admitted() -> None:
    labels = {"alertname": "A", "job": "j" * 11}
    batch = read_alertmanager(am(alert(), alert(labels=labels), alert(fingerprint="f" * 9)), NOW, limits=LIMITS)
    assert batch.indexes == [0]
    assert [(r.index, r.field, r.path) for r in batch.rejected] == [
        (1, "labels.job", "alerts.1.labels.job"),
        (2, "fingerprint", "alerts.2.fingerprint"),
    ]


def test_schema_error_rejects_only_its_alert() -> None:
    batch = read_alertmanager(am(alert(status="burning"), alert()), NOW, limits=LIMITS)
    assert batch.indexes == [1] and [(r.index, r.field) for r in batch.rejected] == [(0, "status")]


def test_nul_is_removed_from_labels_annotations_and_keys_before_the_fingerprint_is_computed() -> None:
    clean = read_generic(b'{"name": "A", "labels": {"team": "pay"}}', NOW).alerts[0]
    dirty = read_generic(b'{"name": "A\\u0000", "labels": {"te\\u0000am": "p\\u0000ay"}}', NOW).alerts[0]
    assert dirty == clean


@pytest.mark.parametrize(
    "starts_at",
    [
        "0001-01-01T00:00:01Z",
        "9999-12-31T23:59:59Z",
        "0001-01-01T00:00:00+05:00",
        (NOW - PLAUSIBLE_PAST - timedelta(seconds=1)).isoformat(),
        (NOW + PLAUSIBLE_FUTURE + timedelta(seconds=1)).isoformat(),
    ],
)
def test_start_outside_the_plausible_window_becomes_receive_time_with_a_note(starts_at: str) -> None:
    [admitted] = read_alertmanager(am(alert(startsAt=starts_at)), NOW).alerts
    assert admitted.starts_at == NOW
    assert "startsAt" in admitted.annotations[ADJUSTED_ANNOTATION]


def test_start_inside_the_window_is_kept_and_not_annotated() -> None:
    start = NOW - PLAUSIBLE_PAST + timedelta(minutes=1)
    [admitted] = read_alertmanager(am(alert(startsAt=start.isoformat())), NOW).alerts
    assert admitted.starts_at == start and ADJUSTED_ANNOTATION not in admitted.annotations


def test_implausible_end_of_a_resolved_generic_alert_is_dropped() -> None:
    body = b'{"name": "A", "status": "resolved", "ends_at": "9999-12-31T23:59:59Z"}'
    [admitted] = read_generic(body, NOW).alerts
    assert admitted.ends_at is None and "ends_at" in admitted.annotations[ADJUSTED_ANNOTATION]
