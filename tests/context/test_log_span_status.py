"""Spans without a status take it from the log lines written in them, as far as those say."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rootward.bundle.load import load_bundle
from rootward.bundle.write import write_logs
from rootward.context.assemble import assemble_context
from rootward.context.log_span_status import MIN_NAMED_SPANS, ids_of, with_log_status
from rootward.context.trace_evidence import trace_findings
from rootward.domain.telemetry import LogRecord, Span
from rootward.engine.trace_attribution import attribute_traces
from rootward.sources.bundle import bundle_sources
from tests.context.span_factory import BASELINE, DURING, FIRED_AT, Phase, incident_spans, write_traced_bundle

# pricing is asked by checkout and catalog; when its answers are wrong, both raise right after them.
SHARED = {"frontend": ["checkout", "catalog"], "checkout": ["pricing", "payment"], "catalog": ["pricing"]}


def _line(service: str, message: str, level: str = "INFO", **extra: str) -> LogRecord:
    return LogRecord(FIRED_AT, service, message, level, extra=dict(extra))


def test_the_span_a_line_was_written_in_is_read_from_its_fields_or_its_text() -> None:
    text = "TraceID: 4bf92f3577b34da6a3ce929d0e0e4736 SpanID: 00F067AA0BA902B7 done"
    assert ids_of(_line("a", text)) == ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")
    assert ids_of(_line("a", "request failed span_id=00f067aa0ba902b7 trace_id=4bf92f35")) == (
        "4bf92f35",
        "00f067aa0ba902b7",
    )
    assert ids_of(_line("a", '{"spanId": "00f067aa0ba902b7", "msg": "x"}')) == ("", "00f067aa0ba902b7")
    assert ids_of(_line("a", "no id here", span_id="ABCDEF0123456789", trace_id="42")) == ("42", "abcdef0123456789")
    assert ids_of(_line("a", "GET /inspect/span-ids 200")) == ("", "")
    # Keys in any case and separator, ids in either case of hex.
    assert ids_of(_line("a", "SPAN.ID=00F067AA0BA902B7 Trace-Id: 4BF92F35")) == ("4bf92f35", "00f067aa0ba902b7")


def _logs_of(spans: Sequence[Span]) -> list[LogRecord]:
    """What services that log their requests write: a line per server span, at ERROR where it failed."""
    return [
        _line(
            s.service, f"TraceID: {s.trace_id} SpanID: {s.span_id} handled", "ERROR" if s.status == "error" else "INFO"
        )
        for s in spans
        if s.kind == "server"
    ]


def _timings_only(spans: Sequence[Span]) -> list[Span]:
    return [replace(s, status=None, kind=None) for s in spans]


def test_a_span_whose_service_logged_an_error_in_it_failed_and_one_with_other_lines_did_not() -> None:
    traced = incident_spans(SHARED, "frontend", Phase(), Phase(failing=frozenset({"payment"})))
    marked = with_log_status(_timings_only(traced), _logs_of(traced))
    for truth, span in zip(traced, marked, strict=True):
        if truth.kind == "server":  # every server span wrote a line: as the tracer saw it
            assert span.status == truth.status
        else:  # nobody logs in a client span: it failed with the answer under it, else it is unknown
            assert span.status == ("error" if truth.status == "error" else None)


def test_a_tracers_own_status_is_never_overridden() -> None:
    traced = incident_spans(SHARED, "frontend", Phase(), Phase(failing=frozenset({"payment"})))
    lies = [replace(line, level="ERROR") for line in _logs_of(traced)]
    assert with_log_status(traced, lies) == traced


def test_a_line_of_another_service_or_too_few_named_spans_mark_nothing() -> None:
    traced = _timings_only(incident_spans(SHARED, "frontend", Phase(), Phase()))
    elsewhere = [
        replace(line, service="someone-else") for line in _logs_of(incident_spans(SHARED, "frontend", Phase(), Phase()))
    ]
    assert all(s.status is None for s in with_log_status(traced, elsewhere))
    few = _logs_of(incident_spans(SHARED, "frontend", Phase(), Phase()))[: MIN_NAMED_SPANS - 1]
    assert all(s.status is None for s in with_log_status(traced, few))


def test_wrong_answers_are_placed_from_the_logs_as_from_a_tracers_status() -> None:
    """Timings only, as Nezha records: the callers raising on pricing's answers are found its victims
    once their error lines say in which span they were written."""
    traced = incident_spans(SHARED, "frontend", Phase(), Phase(wrong_answers=frozenset({"pricing"})))
    from_status = attribute_traces(trace_findings(traced, baseline=BASELINE, during=DURING))
    marked = with_log_status(_timings_only(traced), _logs_of(traced))
    from_logs = attribute_traces(trace_findings(marked, baseline=BASELINE, during=DURING))
    for by in (from_status, from_logs):
        assert by["pricing"].hints[0].fault_type == "deploy_regression" and by["pricing"].own > 0.9
        assert by["checkout"].victim_of == "pricing" and by["catalog"].victim_of == "pricing"
    bare = attribute_traces(trace_findings(_timings_only(traced), baseline=BASELINE, during=DURING))
    assert bare["checkout"].victim_of is None  # without the lines, the shape of the calls alone does not say it


def test_an_investigated_bundle_reads_its_spans_status_from_its_logs(tmp_path: Path) -> None:
    traced = incident_spans(SHARED, "frontend", Phase(), Phase(failing=frozenset({"payment"})))
    root = write_traced_bundle(tmp_path / "b", _timings_only(traced), SHARED)
    write_logs(root, [replace(line, ts=s.start) for line, s in zip(_logs_of(traced), _servers(traced), strict=True)])
    bundle = load_bundle(root)
    found = {(f.kind, f.where): f for f in assemble_context(bundle_sources(bundle), bundle.meta).trace_findings}
    assert found[("origin_errors", "payment")].up
    assert not found[("origin_errors", "checkout")].changed  # it only passed payment's errors on


def _servers(spans: Sequence[Span]) -> list[Span]:
    return [s for s in spans if s.kind == "server"]
