"""Parsed spans and log lines are the dataclasses their constructors would build, field for field."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime

from rootward.bundle.validate import parse_logs, parse_traces
from rootward.domain.telemetry import LogRecord, Span


def test_a_parsed_span_equals_the_one_its_constructor_builds() -> None:
    line = (
        b'{"trace_id":"t1","span_id":"s1","service":"api","start":"2026-03-15T10:00:00+00:00",'
        b'"duration_ms":12,"status":"error","kind":"server","operation":"GET /","attributes":{"a":1}}'
    )
    (span,) = parse_traces(line)
    built = Span(
        "t1",
        "s1",
        "api",
        datetime(2026, 3, 15, 10, tzinfo=UTC),
        12.0,
        None,
        "error",
        "server",
        "GET /",
        "",
        "",
        {"a": 1},
        1,
    )
    assert span == built and repr(span) == repr(built) and hash(span.line) == hash(built.line)
    assert list(vars(span)) == [f.name for f in fields(Span)]


def test_a_parsed_log_line_equals_the_one_its_constructor_builds() -> None:
    (record,) = parse_logs('{"ts":"2026-03-15T10:00:00Z","service":"api","message":"boom","level":"error","x":3}')
    built = LogRecord(datetime(2026, 3, 15, 10, tzinfo=UTC), "api", "boom", "ERROR", "", "", 1, {"x": "3"})
    assert record == built and repr(record) == repr(built)
    assert list(vars(record)) == [f.name for f in fields(LogRecord)]
