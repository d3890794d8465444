"""The code path each call took, read from the log lines its service wrote in its spans.

A code fault need not fail anything its service can see. A method that returns
a wrong value, or returns early, answers as fast as before and logs no error:
its caller raises on the answer, and the caller's spans are where the errors
begin. What the faulty service does show is that it took another path: a log
statement it always reached is no longer reached in some calls (the published
root causes of Nezha's TrainTicket faults are exactly such transitions between
two log statements), or one it never reached now is.

So each span is given the templates its own service logged in it (lines name
their span as in `context.log_span_status`, and are read once for both), and `context.span_graph` turns
them into, per call into a service, the templates it logged: a log statement is
to this reading what an inner operation is to `code_path`. `trace_evidence`
then compares, per operation served, the share of calls that logged each
template before and after the onset (`log_path`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rootward.context.log_span_status import MIN_NAMED_SPANS, Key, span_key
from rootward.context.logs import Assigner, assign_templates
from rootward.domain.telemetry import LogRecord, Span


def logged_templates(
    spans: Sequence[Span], lines: Sequence[tuple[Key, LogRecord]], assign: Assigner | None = None
) -> dict[int, frozenset[str]]:
    """Per span (its index in `spans`), the templates its own service logged in it; {} when too few are named.

    `lines` are the lines that name a span (`log_span_status.named_lines`). Only those naming
    one of `spans` are clustered: a line whose span the trace store did not keep says nothing of
    any call compared. Templates are found per service (`context.logs.assign_templates`, the
    same clustering as everywhere), or looked up in `assign` (`context.log_template_book`).
    """
    if not spans:
        return {}
    full = {(s.service, s.trace_id.lower(), s.span_id.lower()) for s in spans}
    short = {(s.service, s.span_id.lower()) for s in spans}
    by_service: dict[str, list[tuple[Key, LogRecord]]] = {}
    for key, record in lines:
        service, trace_id, span_id = key
        if key in full or (not trace_id and (service, span_id) in short):
            by_service.setdefault(service, []).append((key, record))
    if sum(len(found) for found in by_service.values()) < MIN_NAMED_SPANS:
        return {}
    named: dict[Key, set[str]] = {}
    for found in by_service.values():
        records = [record for _, record in found]
        assignment, templates = assign(records) if assign else assign_templates(r.message for r in records)
        for (key, _), cluster in zip(found, assignment, strict=True):
            named.setdefault(key, set()).add(templates[cluster])
    out: dict[int, frozenset[str]] = {}
    for i, span in enumerate(spans):
        found_key = span_key(span, named.keys())
        if found_key is not None:
            out[i] = frozenset(named[found_key])
    return out if len(out) >= MIN_NAMED_SPANS else {}
