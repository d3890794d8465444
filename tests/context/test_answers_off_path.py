"""The answers a caller fails right after, read in the callee's own lines: a wrong return in a few calls.

pricing answers one call in seven wrongly after the onset, returning before its
end line; checkout, its one caller, raises on exactly those answers. Over all of
pricing's calls the skipped line is too rare to stand out (`log_path`), but in
the calls checkout failed right after, pricing skipped it every time.
"""

from __future__ import annotations

from collections.abc import Sequence

from rootward.context.log_span_paths import logged_templates
from rootward.context.log_span_status import named_lines, with_log_status
from rootward.context.trace_evidence import TraceFinding, trace_findings
from rootward.domain.telemetry import LogRecord, Span
from rootward.engine.trace_attribution import attribute_traces
from tests.context.span_factory import BASELINE, DURING, ONSET, Phase, incident_spans
from tests.context.test_log_span_paths import CHAIN, _path_logs, _timings_only

EVERY = 7  # one trace in EVERY after the onset goes wrong: enough for checkout's errors to count, too few for log_path


def _mixed(bad_after: Phase, returns_early: frozenset[str]) -> tuple[list[Span], list[LogRecord]]:
    """Healthy traces, except one in EVERY after the onset taken from a run where `bad_after` holds."""
    ok = incident_spans(CHAIN, "frontend", Phase(), Phase())
    bad = incident_spans(CHAIN, "frontend", Phase(), bad_after)
    wrong = {s.trace_id for s in bad if s.start >= ONSET and int(s.trace_id, 16) % EVERY == 0}
    kept = [s for s in ok if s.trace_id not in wrong]
    taken = [s for s in bad if s.trace_id in wrong]
    return kept + taken, _path_logs(kept) + _path_logs(taken, returns_early=returns_early)


def _findings(spans: Sequence[Span], logs: Sequence[LogRecord]) -> list[TraceFinding]:
    spans = with_log_status(_timings_only(spans), logs)
    return trace_findings(spans, baseline=BASELINE, during=DURING, logged=logged_templates(spans, named_lines(logs)))


def test_the_caller_fails_on_the_callees_answers_that_skipped_its_end_line() -> None:
    found = _findings(*_mixed(Phase(wrong_answers=frozenset({"pricing"})), frozenset({"pricing"})))
    path = next(f for f in found if f.kind == "log_path" and f.entity == "pricing")
    assert not path.changed  # one call in seven: too rare among all of its calls
    off = next(f for f in found if f.kind == "answers_off_path")
    assert (off.caller, off.entity, off.before, off.after, off.changed) == ("checkout", "pricing", 0.0, 1.0, True)
    by = attribute_traces(found)
    assert by["checkout"].victim_of == "pricing"
    assert by["pricing"].hints[0].fault_type == "deploy_regression"


def test_a_caller_raising_on_its_own_leaves_the_callee_clear() -> None:
    """checkout's own bug, in the same calls: pricing logged its end line in each of them."""
    found = _findings(*_mixed(Phase(failing=frozenset({"checkout"})), frozenset()))
    assert not any(f.changed for f in found if f.kind == "answers_off_path")
    assert attribute_traces(found)["checkout"].victim_of is None
