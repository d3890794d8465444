"""traces.jsonl: spans load with their line numbers, every broken span names line and field, big bundles load fast."""

from __future__ import annotations

import json
import random
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from rootward.bundle.format import BundleError
from rootward.bundle.load import load_bundle
from rootward.domain.telemetry import Span
from tests.bundle.tiny import CHILD_SPAN, ROOT_SPAN, write_bundle


def _with_traces(tmp_path: Path, text: str) -> Path:
    root = write_bundle(tmp_path / "b")
    (root / "traces.jsonl").write_text(text)
    return root


def _error(tmp_path: Path, *spans: dict[str, Any] | str) -> str:
    lines = [s if isinstance(s, str) else json.dumps(s) for s in spans]
    with pytest.raises(BundleError) as info:
        load_bundle(_with_traces(tmp_path, "\n".join(lines) + "\n"))
    return str(info.value)


def test_spans_load_with_every_field_and_their_line_number(tmp_path: Path) -> None:
    spans = load_bundle(write_bundle(tmp_path / "b")).spans
    assert spans == (
        Span(
            trace_id="t1", span_id="a1", service="api", start=datetime(2026, 3, 14, 14, 31, tzinfo=UTC),
            duration_ms=212.5, parent_id=None, status="ok", kind="server", operation="GET /pay", line=1,
        ),
        Span(
            trace_id="t1", span_id="b1", service="db", start=datetime(2026, 3, 14, 14, 31, 0, 50000, tzinfo=UTC),
            duration_ms=150.0, parent_id="a1", status="error", kind="client", operation="SELECT", pod="db-0",
            attributes={"db.system": "postgresql"}, line=2,
        ),
    )  # fmt: skip


def test_optional_fields_may_be_absent_and_blank_lines_keep_the_numbering(tmp_path: Path) -> None:
    bare = {k: ROOT_SPAN[k] for k in ("trace_id", "span_id", "service", "start", "duration_ms")}
    spans = load_bundle(_with_traces(tmp_path, "\n" + json.dumps(bare) + "\n\n")).spans
    assert spans is not None and len(spans) == 1
    [span] = spans
    assert (span.line, span.parent_id, span.status, span.kind, span.operation, span.attributes) == (
        2, None, None, None, "", {}
    )  # fmt: skip


@pytest.mark.parametrize(
    ("attributes", "status"),
    [
        ({"http.status_code": 503}, "error"),
        ({"http.response.status_code": "500"}, "error"),
        ({"http.status_code": 404}, "ok"),  # the caller's business: a cache miss is a 404
        ({"rpc.grpc.status_code": 14}, "error"),  # UNAVAILABLE
        ({"rpc.grpc.status_code": 5}, "ok"),  # NOT_FOUND
        ({"error": True}, "error"),
        # A refused connection has no response code: what the call ended with says it failed.
        ({"peer.service": "db", "error.type": "java.net.ConnectException"}, "error"),
        ({"exception.message": "connection refused"}, "error"),
        ({"exception.message": ""}, None),
        ({"otel.status_code": "ERROR", "http.status_code": 200}, "error"),  # a recorded status first
        ({"db.system": "postgresql"}, None),
    ],
)
def test_a_span_without_a_status_takes_the_one_its_attributes_state(
    tmp_path: Path, attributes: dict[str, Any], status: str | None
) -> None:
    bare = {k: ROOT_SPAN[k] for k in ("trace_id", "span_id", "service", "start", "duration_ms")}
    spans = load_bundle(_with_traces(tmp_path, json.dumps({**bare, "attributes": attributes}) + "\n")).spans
    assert spans is not None and spans[0].status == status


def test_a_recorded_status_is_kept_whatever_the_attributes_say(tmp_path: Path) -> None:
    span = {**ROOT_SPAN, "status": "ok", "attributes": {"http.status_code": 500}}
    spans = load_bundle(_with_traces(tmp_path, json.dumps(span) + "\n")).spans
    assert spans is not None and spans[0].status == "ok"


def test_unknown_span_keys_are_ignored(tmp_path: Path) -> None:
    spans = load_bundle(_with_traces(tmp_path, json.dumps({**ROOT_SPAN, "links": [], "resource": {}}) + "\n")).spans
    assert spans is not None and spans[0].span_id == "a1"


def test_a_missing_traces_file_is_an_unavailable_source_not_an_error(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (root / "traces.jsonl").unlink()
    bundle = load_bundle(root)
    assert bundle.spans is None
    assert bundle.gaps() == ["traces.jsonl: source missing from bundle"]


def test_an_empty_traces_file_is_a_source_with_no_spans(tmp_path: Path) -> None:
    bundle = load_bundle(_with_traces(tmp_path, ""))
    assert bundle.spans == () and "traces.jsonl" not in bundle.missing


def _without(key: str) -> dict[str, Any]:
    return {k: v for k, v in ROOT_SPAN.items() if k != key}


ERRORS: list[tuple[dict[str, Any] | str, str]] = [
    ("{oops", r"^traces.jsonl line 2: not valid JSON"),
    ("[1, 2]", r"^traces.jsonl line 2: expected an object"),
    (_without("trace_id"), r"^traces.jsonl line 2: required field 'trace_id' is missing"),
    (_without("span_id"), r"^traces.jsonl line 2: required field 'span_id' is missing"),
    (_without("service"), r"^traces.jsonl line 2: required field 'service' is missing"),
    (_without("start"), r"^traces.jsonl line 2: required field 'start' is missing"),
    (_without("duration_ms"), r"^traces.jsonl line 2: required field 'duration_ms' is missing"),
    ({**ROOT_SPAN, "service": ""}, r"line 2: field 'service' must be a non-empty string"),
    ({**ROOT_SPAN, "trace_id": 93}, r"line 2: field 'trace_id' must be a non-empty string, got 93"),
    ({**ROOT_SPAN, "start": "soon"}, r"line 2: field 'start': 'soon' is not an RFC 3339 timestamp"),
    ({**ROOT_SPAN, "start": "2026-03-14T14:31:00"}, r"line 2: field 'start': .* has no time zone"),
    ({**ROOT_SPAN, "start": 1773498660}, r"line 2: field 'start': expected an RFC 3339 timestamp"),
    ({**ROOT_SPAN, "duration_ms": -1}, r"line 2: field 'duration_ms' must be a number >= 0, got -1"),
    ({**ROOT_SPAN, "duration_ms": "12"}, r"line 2: field 'duration_ms' must be a number >= 0, got '12'"),
    ({**ROOT_SPAN, "duration_ms": True}, r"line 2: field 'duration_ms' must be a number >= 0, got True"),
    ({**ROOT_SPAN, "parent_id": 7}, r"line 2: field 'parent_id' must be a string or null, got 7"),
    ({**ROOT_SPAN, "status": "unset"}, r"line 2: field 'status' must be one of ok, error or absent, got 'unset'"),
    ({**ROOT_SPAN, "kind": "SERVER"}, r"line 2: field 'kind' must be one of server, client, .* got 'SERVER'"),
    ({**ROOT_SPAN, "attributes": ["a"]}, r"line 2: field 'attributes' must be an object, got list"),
]


@pytest.mark.parametrize(("span", "message"), ERRORS, ids=[m.split(": ", 1)[-1][:40] for _, m in ERRORS])
def test_a_broken_span_names_the_file_line_and_field(tmp_path: Path, span: dict[str, Any] | str, message: str) -> None:
    assert re.search(message, _error(tmp_path, CHILD_SPAN, span))


def _generated(count: int, seed: int = 7) -> str:
    """`count` spans in traces of ten: a frontend root calling nine spans of twelve services."""
    rng = random.Random(seed)
    lines = []
    for trace in range(count // 10):
        at = f"2026-03-14T14:{trace // 60 % 60:02d}:{trace % 60:02d}.{rng.randrange(1000):03d}Z"
        root = {"trace_id": f"{trace:032x}", "span_id": f"{trace:08x}00000000", "parent_id": None,
                "service": "frontend", "operation": "GET /", "start": at, "duration_ms": rng.random() * 300,
                "status": "ok", "kind": "server", "pod": "frontend-0",
                "attributes": {"http.status_code": 200}}  # fmt: skip
        lines.append(json.dumps(root))
        for child in range(1, 10):
            span = {**root, "span_id": f"{trace:08x}{child:08x}", "parent_id": root["span_id"],
                    "service": f"svc-{rng.randrange(12)}", "kind": "client", "duration_ms": rng.random() * 100,
                    "status": rng.choice(["ok", "error"])}  # fmt: skip
            lines.append(json.dumps(span))
    return "\n".join(lines) + "\n"


def test_twenty_thousand_spans_load_well_under_a_second(tmp_path: Path) -> None:
    root = _with_traces(tmp_path, _generated(20_000))
    started = time.perf_counter()
    bundle = load_bundle(root)
    elapsed = time.perf_counter() - started
    assert bundle.spans is not None and len(bundle.spans) == 20_000
    assert bundle.spans[-1].line == 20_000
    assert elapsed < 1.0, f"loading 20,000 spans took {elapsed:.2f}s"
