"""The C path of logs.jsonl and traces.jsonl reads what it takes exactly as the general path, and leaves the rest."""

from __future__ import annotations

import pytest

import rootward.bundle.typed_lines as typed_lines
import rootward.bundle.validate as validate
from rootward.bundle.format import BundleError

LOGS = "\n".join(
    [
        '{"ts":"2026-03-15T10:00:00.123Z","service":"api","message":"started","level":"info","pod":"api-7d9f-x1"}',
        "",  # blank lines are skipped, and counted
        '{"ts":"2026-03-15T10:00:01+02:00","service":"db","message":"slow query","level":null,"host":"vm-1"}',
        '{"ts":"2026-03-15T10:00:02.1234567Z","service":"api","message":"nanoseconds","level":""}\r',
        "   ",
        '{"ts":"2026-03-15T10:00:03Z","service":"api","message":"boom \\u00e9","level":"Error","host":null}',
    ]
)

SPANS = b"\n".join(
    [
        b'{"trace_id":"t1","span_id":"a","service":"api","start":"2026-03-15T10:00:00Z","duration_ms":12}',
        b'{"trace_id":"t1","span_id":"b","parent_id":"a","service":"db","start":"2026-03-15T10:00:00.5+00:00",'
        b'"duration_ms":3.5,"kind":"client","operation":"SELECT","pod":null,"host":"vm-1","x":[1]}',
        b"",
        b'{"trace_id":"t1","span_id":"c","parent_id":"","service":"db","start":"2026-03-15T10:00:01Z",'
        b'"duration_ms":0,"status":null,"attributes":{"http.status_code":503}}',
        b'{"trace_id":"t2","span_id":"d","service":"web","start":"2026-03-15T10:00:02.9999999Z",'
        b'"duration_ms":1,"status":"ok","attributes":{"http.status_code":503}}\r',
    ]
)


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(typed_lines, "logs", lambda *_: None)
    monkeypatch.setattr(typed_lines, "spans", lambda *_: None)


def test_logs_read_in_c_equal_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    typed = typed_lines.logs(LOGS, validate._new_log)
    assert typed is not None
    _general(monkeypatch)
    general = validate.parse_logs(LOGS)
    assert [r.line for r in typed] == [1, 3, 4, 6]
    assert typed == general and repr(typed) == repr(general)
    assert [list(vars(r)) for r in typed] == [list(vars(r)) for r in general]
    assert [r.level for r in typed] == ["INFO", "", "", "ERROR"]
    assert typed[2].ts.microsecond == 123456  # truncated to the microsecond, as fromisoformat reads it


def test_spans_read_in_c_equal_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    typed = typed_lines.spans(SPANS, validate._new_span)
    assert typed is not None
    _general(monkeypatch)
    general = validate.parse_traces(SPANS)
    assert typed == general and repr(typed) == repr(general)
    assert [s.line for s in typed] == [1, 2, 4, 5]
    assert typed[2].parent_id is None and typed[2].status == "error"  # "" is no parent; the code says failed
    assert typed[3].status == "ok"  # a stated status wins over the attributes
    assert typed[0].duration_ms == 12.0 and isinstance(typed[0].duration_ms, float)


@pytest.mark.parametrize(
    "line",
    [
        '{"ts":"2026-03-15T10:00:00Z","service":"api","message":"m","trace_id":"abc"}',  # goes to `extra`
        '{"ts":"2026-03-15T10:00:00","service":"api","message":"m"}',  # no zone
        '{"ts":1773568800,"service":"api","message":"m"}',  # epoch seconds
        '{"ts":"2026-03-15T10:00:00Z","service":7,"message":"m"}',  # a number for a name
        '{"ts":"2026-03-15T10:00:00Z","service":"api","message":"m","level":3}',
        '{"ts":"2026-03-15T10:00:00Z","service":"api","message":NaN}',
        '{"ts":"2026-03-15T10:00:00Z","service":"api"}',
        "[1, 2]",
        "not json",
    ],
)
def test_a_log_line_the_c_path_cannot_read_leaves_the_file_to_the_general_path(line: str) -> None:
    text = LOGS + "\n" + line
    assert typed_lines.logs(text, validate._new_log) is None
    try:
        expected: object = validate.parse_logs(text)
    except BundleError as exc:
        assert "logs.jsonl line 7" in str(exc)
        return
    assert len(expected) == 5  # type: ignore[arg-type]


def test_extra_fields_of_a_log_line_are_kept() -> None:
    (record,) = validate.parse_logs('{"ts":"2026-03-15T10:00:00Z","service":"api","message":"m","span_id":"ab12"}')
    assert record.extra == {"span_id": "ab12"}


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (b'{"trace_id":"","span_id":"s","service":"api","start":"2026-03-15T10:00:00Z","duration_ms":1}', "trace_id"),
        (b'{"trace_id":"t","span_id":"s","service":"api","start":"2026-03-15T10:00:00Z","duration_ms":-1}', "duration"),
        (b'{"trace_id":"t","span_id":"s","service":"api","start":"2026-03-15T10:00:00","duration_ms":1}', "start"),
        (b'{"trace_id":"t","span_id":"s","service":"api","start":"2026-03-15T10:00:00Z","duration_ms":true}', ""),
        (
            b'{"trace_id":"t","span_id":"s","service":"api","start":"2026-03-15T10:00:00Z","duration_ms":1,'
            b'"status":"unset"}',
            "status",
        ),
        (
            b'{"trace_id":"t","span_id":"s","service":"api","start":"2026-03-15T10:00:00Z","duration_ms":1,'
            b'"kind":"SERVER"}',
            "kind",
        ),
        (b'{"trace_id":"t","span_id":"s","service":"api","start":"2026-03-15T10:00:00Z"}', "duration_ms"),
        (b'{"trace_id":"t","span_id":"s","service":"api","start":"2026-03-15T10:00:00Z","duration_ms":1}{}', ""),
    ],
)
def test_a_span_the_c_path_refuses_gets_the_general_paths_error(line: bytes, error: str) -> None:
    raw = SPANS + b"\n" + line
    assert typed_lines.spans(raw, validate._new_span) is None
    with pytest.raises(BundleError, match=f"traces.jsonl line 6.*{error}"):
        validate.parse_traces(raw)


def test_a_span_field_of_another_type_is_read_by_the_general_path() -> None:
    raw = b'{"trace_id":"t","span_id":"s","service":"api","start":"2026-03-15T10:00:00Z","duration_ms":1,"operation":5}'
    assert typed_lines.spans(raw, validate._new_span) is None
    (span,) = validate.parse_traces(raw)
    assert span.operation == "5"
