"""The code path each call took, read from the log lines its service wrote in its spans.

A code fault need not fail anything its service can see. A method that returns
a wrong value, or returns early, answers as fast as before and logs no error:
its caller raises on the answer, and the caller's spans are where the errors
begin. What the faulty service does show is that it took another path: a log
statement it always reached is no longer reached in some calls (the published
root causes of Nezha's TrainTicket faults are exactly such transitions between
two log statements), or one it never reached now is.

So each span is given the templates its own service logged in it (lines name
their span as in `context.log_span_status`), and `context.span_graph` turns
them into, per call into a service, the templates it logged: a log statement is
to this reading what an inner operation is to `code_path`. `trace_evidence`
then compares, per operation served, the share of calls that logged each
template before and after the onset (`log_path`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rootward.context.log_span_status import MIN_NAMED_SPANS, ids_of, span_key
from rootward.context.logs import assign_templates
from rootward.domain.telemetry import LogRecord, Span


def logged_templates(spans: Sequence[Span], logs: Iterable[LogRecord]) -> dict[int, frozenset[str]]:
    """Per span (its index in `spans`), the templates its own service logged in it; {} when too few are named.

    Templates are found per service (`context.logs.assign_templates`, the same clustering as
    everywhere), over the lines that name a span: a line without one says nothing of any call.
    """
    if not spans:
        return {}
    by_service: dict[str, list[tuple[tuple[str, str, str], str]]] = {}
    for record in logs:
        trace_id, span_id = ids_of(record)
        if span_id:
            by_service.setdefault(record.service, []).append(((record.service, trace_id, span_id), record.message))
    named: dict[tuple[str, str, str], set[str]] = {}
    for lines in by_service.values():
        assignment, templates = assign_templates(message for _, message in lines)
        for (key, _), cluster in zip(lines, assignment, strict=True):
            named.setdefault(key, set()).add(templates[cluster])
    out: dict[int, frozenset[str]] = {}
    for i, span in enumerate(spans):
        found = span_key(span, named.keys())
        if found is not None:
            out[i] = frozenset(named[found])
    return out if len(out) >= MIN_NAMED_SPANS else {}
