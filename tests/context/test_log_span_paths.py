"""A call's code path read from the lines its service logged in its spans: a wrong return shows where it is made."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rootward.bundle.load import load_bundle
from rootward.bundle.write import write_logs
from rootward.context.assemble import assemble_context
from rootward.context.log_span_paths import logged_templates
from rootward.context.log_span_status import MIN_NAMED_SPANS, named_lines, with_log_status
from rootward.context.trace_evidence import trace_findings
from rootward.domain.telemetry import LogRecord, Span
from rootward.engine.hypotheses import score_entities
from rootward.engine.trace_attribution import attribute_traces
from rootward.sources.bundle import bundle_sources
from tests.context.span_factory import BASELINE, DURING, ONSET, Phase, incident_spans, write_traced_bundle

# pricing has one caller: when checkout raises right after its answers, one caller alone cannot say whose fault it is.
CHAIN = {"frontend": ["checkout"], "checkout": ["pricing", "payment"]}


def _path_logs(
    spans: Sequence[Span], returns_early: frozenset[str] = frozenset(), falls_back: frozenset[str] = frozenset()
) -> list[LogRecord]:
    """A start line and an end line per server span (ERROR where it failed); after the onset, the
    services in `returns_early` return before their end line, as a method cut short by a wrong return,
    and those in `falls_back` log a fallback instead of failing (a caller branching on a bad answer)."""
    out = []
    for s in spans:
        if s.kind != "server":
            continue
        ids = f"TraceID: {s.trace_id} SpanID: {s.span_id}"
        out.append(LogRecord(s.start, s.service, f"{ids} handling {s.operation}", "INFO"))
        after = s.start >= ONSET
        if s.service in returns_early and after:
            continue
        failed = s.status == "error"
        outcome = "served a cached default for" if s.service in falls_back and after else "handled"
        message = f"{ids} request {'failed' if failed else outcome} {s.operation}"
        out.append(LogRecord(s.start, s.service, message, "ERROR" if failed else "INFO"))
    return out


def _timings_only(spans: Sequence[Span]) -> list[Span]:
    return [replace(s, status=None, kind=None) for s in spans]


def _wrong_pricing() -> tuple[list[Span], list[LogRecord]]:
    traced = incident_spans(CHAIN, "frontend", Phase(), Phase(wrong_answers=frozenset({"pricing"})))
    return traced, _path_logs(traced, returns_early=frozenset({"pricing"}))


def test_each_span_gets_the_templates_its_own_service_logged_in_it() -> None:
    traced, logs = _wrong_pricing()
    spans = _timings_only(traced)
    logged = logged_templates(spans, named_lines(logs))
    servers = [i for i, s in enumerate(traced) if s.kind == "server"]
    assert set(logged) == set(servers)  # nobody logs in a client span
    early = [i for i in servers if traced[i].service == "pricing" and traced[i].start >= ONSET]
    assert early and all(len(logged[i]) == 1 for i in early)
    assert all(len(logged[i]) == 2 for i in servers if i not in early)
    elsewhere = [replace(line, service="someone-else") for line in logs]
    assert logged_templates(spans, named_lines(elsewhere)) == {}
    assert logged_templates(spans, named_lines(logs[: MIN_NAMED_SPANS - 1])) == {}


def test_a_callee_whose_calls_skip_a_line_is_the_cause_its_one_caller_raises_on() -> None:
    traced, logs = _wrong_pricing()
    spans = with_log_status(_timings_only(traced), logs)
    found = trace_findings(spans, baseline=BASELINE, during=DURING, logged=logged_templates(spans, named_lines(logs)))
    path = {f.entity: f for f in found if f.kind == "log_path"}
    assert path["pricing"].changed and path["pricing"].before == 1.0 and path["pricing"].after == 0.0
    # Every call of checkout fails after the onset: none is left whose path could have moved.
    assert "checkout" not in path or not path["checkout"].changed
    by = attribute_traces(found)
    assert by["checkout"].victim_of == "pricing"
    assert by["pricing"].hints[0].fault_type == "deploy_regression"
    blind = attribute_traces(trace_findings(spans, baseline=BASELINE, during=DURING))
    assert blind["checkout"].victim_of is None  # without the lines' paths, checkout's errors are its own


def test_a_caller_whose_errors_originate_in_its_spans_fails_even_where_its_failed_share_fell_short() -> None:
    """An earlier fault elsewhere made checkout's calls fail in part of the baseline: its share of failed
    calls (and its callers' share of failed calls to it) is then compared with the rest alone, too few
    calls to pass the test. The errors originating in its own spans, never seen before, still pass:
    it is failing, and the callee whose code took another path is what it fails on."""
    traced, logs = _wrong_pricing()
    spans = with_log_status(_timings_only(traced), logs)
    found = trace_findings(spans, baseline=BASELINE, during=DURING, logged=logged_templates(spans, named_lines(logs)))
    thin = {("errors", "checkout", None), ("call_errors", "checkout", "frontend")}
    found = [f.model_copy(update={"changed": False}) if (f.kind, f.entity, f.caller) in thin else f for f in found]
    origin = next(f for f in found if (f.kind, f.entity) == ("origin_errors", "checkout"))
    assert origin.up
    assert attribute_traces(found)["checkout"].victim_of == "pricing"


def test_fewer_calls_or_fewer_logged_minutes_are_no_other_path() -> None:
    """Fewer calls after the onset, or a log source that starts late, change no call's path."""
    traced = incident_spans(CHAIN, "frontend", Phase(), Phase(), per_side=60)
    fewer = [s for s in traced if s.start < ONSET or int(s.trace_id, 16) % 2 == 0]
    logs = _path_logs(fewer)
    found = trace_findings(fewer, baseline=BASELINE, during=DURING, logged=logged_templates(fewer, named_lines(logs)))
    assert not any(f.changed for f in found if f.kind == "log_path")
    # A log source that starts later than the traces leaves early calls without lines: no path moved either.
    late = [line for line in _path_logs(traced) if line.ts >= BASELINE[0] + (BASELINE[1] - BASELINE[0]) / 2]
    found = trace_findings(traced, baseline=BASELINE, during=DURING, logged=logged_templates(traced, named_lines(late)))
    assert [f for f in found if f.kind == "log_path"]
    assert not any(f.changed for f in found if f.kind == "log_path")


def test_an_investigated_bundle_ranks_the_callee_above_the_caller_that_raises(tmp_path: Path) -> None:
    traced, logs = _wrong_pricing()
    root = write_traced_bundle(tmp_path / "b", _timings_only(traced), CHAIN)
    write_logs(root, logs)
    bundle = load_bundle(root)
    ranked = score_entities(assemble_context(bundle_sources(bundle), bundle.meta))
    assert ranked[0].entity == "pricing"
    checkout = next(s for s in ranked if s.entity == "checkout")
    assert checkout.victim_of == "pricing"


def test_a_caller_that_branches_on_a_changed_answer_passes_the_change_up_from_its_callee() -> None:
    """No span fails: pricing returns early, checkout falls back on what it got. Answers travel up,
    so of the two path changes on the edge, the callee's is the origin."""
    traced = incident_spans(CHAIN, "frontend", Phase(), Phase())
    logs = _path_logs(traced, returns_early=frozenset({"pricing"}), falls_back=frozenset({"checkout"}))
    spans = with_log_status(_timings_only(traced), logs)
    found = trace_findings(spans, baseline=BASELINE, during=DURING, logged=logged_templates(spans, named_lines(logs)))
    assert {f.entity for f in found if f.kind == "log_path" and f.changed} == {"pricing", "checkout"}
    by = attribute_traces(found)
    assert by["checkout"].victim_of == "pricing" and by["pricing"].victim_of is None
    # The callee alone changed nothing: the caller's own branch is its own.
    own = _path_logs(traced, falls_back=frozenset({"checkout"}))
    spans = with_log_status(_timings_only(traced), own)
    alone = attribute_traces(
        trace_findings(spans, baseline=BASELINE, during=DURING, logged=logged_templates(spans, named_lines(own)))
    )
    assert alone["checkout"].victim_of is None and alone["checkout"].own > 0


def test_a_caller_whose_failure_lines_name_no_span_is_the_victim_of_a_callee_that_changed_path(
    tmp_path: Path,
) -> None:
    """Its spans look fine, its error lines say in no span which call failed and name nothing:
    the callee whose calls took another path at the same time is what it fails on."""
    traced = incident_spans(CHAIN, "frontend", Phase(), Phase())
    logs = _path_logs(traced, returns_early=frozenset({"pricing"}))
    step = (DURING[1] - DURING[0]) / 40
    logs += [
        LogRecord(
            DURING[0] + step * i, "checkout", "IllegalStateException: unexpected response: field is null", "ERROR"
        )
        for i in range(40)
    ]
    root = write_traced_bundle(tmp_path / "b", _timings_only(traced), CHAIN)
    write_logs(root, sorted(logs, key=lambda line: line.ts))
    bundle = load_bundle(root)
    ranked = score_entities(assemble_context(bundle_sources(bundle), bundle.meta))
    checkout = next(s for s in ranked if s.entity == "checkout")
    assert checkout.victim_of == "pricing"
    assert ranked[0].entity == "pricing"


def _pricing_serves(spans: Sequence[Span], operations: Sequence[str], later: Sequence[str] = ()) -> list[Span]:
    """Pricing's calls spread over `operations` in turn (over `later` after the onset, when given)."""
    out, turn = [], 0
    for s in spans:
        if s.service == "pricing" and s.kind == "server":
            ops = later if later and s.start >= ONSET else operations
            s = replace(s, operation=ops[turn % len(ops)])
            turn += 1
        out.append(s)
    return out


def _half_skip_the_end_line(spans: Sequence[Span], service: str) -> list[LogRecord]:
    """`_path_logs`, where after the onset half the calls of `service` (four in a row, then four not)
    return before their end line."""
    skipped = {_ids(s) for s in spans if s.service == service and s.start >= ONSET and int(s.trace_id, 16) // 4 % 2}
    return [line for line in _path_logs(spans) if not (" request " in line.message and _named(line) in skipped)]


def _ids(span: Span) -> tuple[str, str]:
    return span.trace_id, span.span_id


def _named(line: LogRecord) -> tuple[str, str]:
    words = line.message.split()  # TraceID: <trace> SpanID: <span> ...
    return words[1], words[3]


def test_a_line_every_operation_reached_is_compared_over_all_their_calls() -> None:
    """Half of pricing's calls skip their end line, spread over four operations: per operation 15 calls
    after the onset are too few to tell (with eight tries), all 60 together are not."""
    traced = _pricing_serves(incident_spans(CHAIN, "frontend", Phase(), Phase()), [f"GET /api/{x}" for x in "abcd"])
    logs = _half_skip_the_end_line(traced, "pricing")
    spans = with_log_status(_timings_only(traced), logs)
    found = trace_findings(spans, baseline=BASELINE, during=DURING, logged=logged_templates(spans, named_lines(logs)))
    path = next(f for f in found if f.kind == "log_path" and f.entity == "pricing")
    assert path.changed and path.before == 1.0 and 0.4 < path.after < 0.6
    assert (path.n_before, path.n_after) == (60, 60)
    assert "every operation that always logged it" in path.evidence.excerpt


def test_callers_asking_for_other_operations_move_no_pooled_line() -> None:
    """Two operations always log the end line, a third never does; after the onset callers ask mostly
    for the third. The pooled share is over the two that always logged it: nothing moved."""
    ops = ["GET /api/a", "GET /api/b", "GET /api/c"]
    traced = _pricing_serves(
        incident_spans(CHAIN, "frontend", Phase(), Phase(), per_side=90), ops, later=[ops[2], ops[2], ops[0], ops[1]]
    )
    quiet = {_ids(s) for s in traced if s.operation == ops[2]}
    logs = [line for line in _path_logs(traced) if not (" request " in line.message and _named(line) in quiet)]
    spans = with_log_status(_timings_only(traced), logs)
    found = trace_findings(spans, baseline=BASELINE, during=DURING, logged=logged_templates(spans, named_lines(logs)))
    assert not any(f.changed for f in found if f.kind == "log_path")
