"""What the writers put on disk, the loader reads back as the same records."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from rootward.bundle.load import load_bundle
from rootward.bundle.write import (
    write_alerts,
    write_changes,
    write_incident,
    write_logs,
    write_metrics,
    write_traces,
)
from rootward.domain.alert import Alert, Severity
from rootward.domain.incident import IncidentMeta
from rootward.domain.telemetry import Change, LogRecord, MetricSeries, Span

T0 = datetime(2026, 3, 14, 14, 32, tzinfo=UTC)
META = IncidentMeta(
    id="inc-1",
    title="HighErrorRate on api",
    fired_at=T0,
    window_start=datetime(2026, 3, 14, 13, 32, tzinfo=UTC),
    window_end=datetime(2026, 3, 14, 14, 47, tzinfo=UTC),
)


def _alert(**changes: object) -> Alert:
    fields: dict[str, object] = {
        "fingerprint": "fp-1",
        "name": "HighErrorRate",
        "service": "api",
        "severity": Severity.P1,
        "status": "firing",
        "starts_at": T0,
        "labels": {"alertname": "HighErrorRate", "service": "api", "severity": "critical"},
        "annotations": {"summary": "5xx above 5%"},
        "generator_url": "http://prometheus/graph",
    }
    return Alert(**(fields | changes))  # type: ignore[arg-type]


def _written(tmp_path: Path, alerts: list[Alert]) -> Path:
    write_incident(tmp_path, META)
    write_alerts(tmp_path, alerts)
    return tmp_path


def test_alerts_written_from_domain_records_load_back_unchanged(tmp_path: Path) -> None:
    resolved = _alert(fingerprint="fp-2", status="resolved", ends_at=datetime(2026, 3, 14, 14, 40, tzinfo=UTC))
    alerts = [_alert(), resolved]
    bundle = load_bundle(_written(tmp_path, alerts))
    assert bundle.alerts == alerts
    assert bundle.meta == META


def test_alerts_json_is_one_alertmanager_payload_firing_while_any_alert_fires(tmp_path: Path) -> None:
    _written(tmp_path, [_alert(), _alert(fingerprint="fp-2", status="resolved")])
    payloads = json.loads((tmp_path / "alerts.json").read_text())
    assert [p["status"] for p in payloads] == ["firing"]
    assert [a["endsAt"] for a in payloads[0]["alerts"]] == ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"]


def test_a_naive_start_time_is_written_as_utc(tmp_path: Path) -> None:
    bundle = load_bundle(_written(tmp_path, [_alert(starts_at=T0.replace(tzinfo=None))]))
    assert bundle.alerts[0].starts_at == T0


def test_logs_are_written_oldest_first_so_line_numbers_follow_time(tmp_path: Path) -> None:
    later = LogRecord(ts=T0, service="api", message="second", level="ERROR")
    earlier = LogRecord(ts=datetime(2026, 3, 14, 14, 0, tzinfo=UTC), service="db", message="first", pod="db-0")
    write_logs(_written(tmp_path, [_alert()]), [later, earlier])
    logs = load_bundle(tmp_path).logs
    assert logs is not None
    assert [(r.line, r.message, r.pod, r.level) for r in logs] == [(1, "first", "db-0", ""), (2, "second", "", "ERROR")]


def test_a_log_records_extra_fields_are_kept_without_overriding_the_standard_ones(tmp_path: Path) -> None:
    record = LogRecord(ts=T0, service="api", message="BackOff", extra={"source": "kubernetes.event", "service": "x"})
    write_logs(_written(tmp_path, [_alert()]), [record])
    logs = load_bundle(tmp_path).logs
    assert logs is not None
    assert (logs[0].service, logs[0].extra) == ("api", {"source": "kubernetes.event"})


def test_metrics_and_changes_round_trip(tmp_path: Path) -> None:
    series = [MetricSeries("api", "error_rate", (1773498600, 1773498660), (0.01, 0.25))]
    change = Change(id="d-1", kind="deploy", service="api", time=T0, version="v2", author="ci", summary="bump")
    root = _written(tmp_path, [_alert()])
    write_metrics(root, series)
    write_changes(root, [change])
    bundle = load_bundle(root)
    assert bundle.metrics == series
    assert bundle.changes == [change]


def _span(trace: str, span: str, service: str, second: int, parent: str | None = None, **extra: object) -> Span:
    start = datetime(2026, 3, 14, 14, 0, second, tzinfo=UTC)
    return Span(trace_id=trace, span_id=span, service=service, start=start, duration_ms=12.5, parent_id=parent, **extra)  # type: ignore[arg-type]


def test_spans_are_written_trace_by_trace_oldest_first_and_load_back_with_their_lines(tmp_path: Path) -> None:
    late_root = _span("t2", "r2", "api", 30)
    early_child = _span("t1", "c1", "db", 11, "r1", status="error", kind="client", pod="db-0", attributes={"n": 1})
    early_root = _span("t1", "r1", "api", 10, status="ok", kind="server", operation="GET /", host="node-1")
    write_traces(_written(tmp_path, [_alert()]), [late_root, early_child, early_root])
    spans = load_bundle(tmp_path).spans
    assert spans is not None
    assert [(s.line, s.trace_id, s.span_id) for s in spans] == [(1, "t1", "r1"), (2, "t1", "c1"), (3, "t2", "r2")]
    assert [replace(s, line=0) for s in spans] == [early_root, early_child, late_root]


def test_a_span_attribute_json_cannot_hold_is_written_as_text(tmp_path: Path) -> None:
    write_traces(_written(tmp_path, [_alert()]), [_span("t1", "r1", "api", 10, attributes={"raw": b"\x01", "d": T0})])
    spans = load_bundle(tmp_path).spans
    assert spans is not None and spans[0].attributes == {"raw": "b'\\x01'", "d": "2026-03-14T14:32:00+00:00"}
