"""Span status from the log lines written inside each span, for tracers that record timings only.

Many traces carry no status at all (Nezha's, many SkyWalking and older Zipkin
exports), and then nothing in them says where an error began: a code fault
shows only in the shape of the calls. The services' own log lines often do
say which span they were written in: OpenTelemetry's log correlation puts
`trace_id` and `span_id` on every record, and common log formats print them
(`TraceID: 4bf92f3577b34da6 SpanID: 00f067aa0ba902b7`, `span_id=...`,
`"spanId": "..."`). A span in which its service logged an error failed; one in
which it logged only other lines ran without an error as far as anyone can
tell; a span no line names keeps its unknown status, unless a span under it
failed (nobody logs in a client span, and a call is as good as its answer).

A tracer's own status is never overridden: the logs are read only when no span
says ok or error. A chronic error (a service that logs ERROR on every request,
healthy or not) marks its spans failed before the onset as after, so the
before/after comparison of `trace_evidence` does not read it as a change.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

from rootward.context.logs import ERROR_LEVELS
from rootward.domain.telemetry import LogRecord, Span, SpanStatus

# `SpanID: 00f067aa0ba902b7`, `span_id=00f0...`, `"spanId": "00f0..."`, `span.id=...`; the same for traces.
# Any case, spelled out in classes: `re.IGNORECASE` folds every character it compares, and this is
# read on every log line (half the time of reading 20,000 lines for the spans they name).
_IDS_IN_TEXT = re.compile(
    r"""\b([Ss][Pp][Aa][Nn]|[Tt][Rr][Aa][Cc][Ee])[ _.-]?[Ii][Dd]\b["']?\s*[:=]\s*["']?([0-9a-fA-F]{8,32})\b"""
)
_SPAN_KEYS = frozenset({"span_id", "spanid", "span.id", "dd.span_id"})
_TRACE_KEYS = frozenset({"trace_id", "traceid", "trace.id", "dd.trace_id"})
# Fewer spans named by the logs than this and the marks would be a sample too thin to compare.
MIN_NAMED_SPANS = 20

Key = tuple[str, str, str]  # (service, trace id or "", span id)


def ids_of(record: LogRecord) -> tuple[str, str]:
    """(trace id, span id) the line was written in, lower case, from its fields or its text; "" for none."""
    trace = span = ""
    for key, value in record.extra.items():
        low = key.lower()
        if low in _SPAN_KEYS and value:
            span = str(value).strip().lower()
        elif low in _TRACE_KEYS and value:
            trace = str(value).strip().lower()
    if span:
        return trace, span
    for kind, value in _IDS_IN_TEXT.findall(record.message):
        if kind.lower() == "span":
            span = span or value.lower()
        else:
            trace = trace or value.lower()
    return trace, span


def named_lines(logs: Iterable[LogRecord]) -> list[tuple[Key, LogRecord]]:
    """The lines that name the span they were written in, each with the key it names it by.

    Read once per investigation: both the status (`with_log_status`) and the code path of a
    call (`context.log_span_paths`) come from the same lines.
    """
    out = []
    for record in logs:
        trace_id, span_id = ids_of(record)
        if span_id:
            out.append(((record.service, trace_id, span_id), record))
    return out


def with_log_status(spans: Sequence[Span], logs: Iterable[LogRecord]) -> list[Span]:
    """The spans, each one its service's log lines name marked failed (an error line) or ok (none)."""
    return status_from_lines(spans, named_lines(logs))


def status_from_lines(spans: Sequence[Span], lines: Sequence[tuple[Key, LogRecord]]) -> list[Span]:
    """`with_log_status` from lines already read by `named_lines`.

    A line counts for a span of its own service only (a line that prints the caller's span id, as
    some propagators log it, says nothing of that span), and within the trace it names, if it names
    one (span ids are unique within a trace). Unchanged when any span has a status of its own, or
    when the logs name too few spans.
    """
    if not spans or any(s.status is not None for s in spans):
        return list(spans)
    named: set[Key] = set()
    failed: set[Key] = set()
    for key, record in lines:
        named.add(key)
        if record.level.upper() in ERROR_LEVELS:
            failed.add(key)
    matched = {i: k for i, s in enumerate(spans) if (k := span_key(s, named)) is not None}
    if len(matched) < MIN_NAMED_SPANS:
        return list(spans)
    status: dict[int, SpanStatus] = {i: "error" if key in failed else "ok" for i, key in matched.items()}
    _pass_failures_up(spans, status)
    out = list(spans)
    for i, value in status.items():
        out[i] = spans[i].with_status(value)
    return out


def _pass_failures_up(spans: Sequence[Span], status: dict[int, SpanStatus]) -> None:
    """A span no line names whose child failed failed too: a client span is as good as its callee's answer.

    Without it, the caller's client span (where nobody logs) would read as a call that went well, and
    the error would seem to begin in the caller's own span above it.
    """
    index = {(s.trace_id, s.span_id): i for i, s in enumerate(spans)}
    failing = [i for i, value in status.items() if value == "error"]
    while failing:
        child = spans[failing.pop()]
        parent = index.get((child.trace_id, child.parent_id)) if child.parent_id else None
        if parent is not None and parent not in status:
            status[parent] = "error"
            failing.append(parent)


def span_key(span: Span, named: Collection[Key]) -> Key | None:
    """The key under which lines named the span: with its trace id, or with none."""
    span_id = span.span_id.lower()
    for key in ((span.service, span.trace_id.lower(), span_id), (span.service, "", span_id)):
        if key in named:
            return key
    return None
