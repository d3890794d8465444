"""Latency with no resource behind it is a delay on the path, unless the spans timed that path and it did not grow.

Real services throw exceptions without an error series to show it (Online Boutique's ad
service: its p99 rose, nothing else of its own moved). Read from the series alone that is a
network delay; its callers' spans, though, measure the time their calls spend outside its
spans, and that stayed where it was. What is left is its own work: its code.
"""

from __future__ import annotations

from rootward.context.assemble import Context
from rootward.context.trace_evidence import trace_findings
from rootward.engine.hypotheses import score_entities
from tests.context.span_factory import BASELINE, DURING, Phase, incident_spans
from tests.engine.small_incidents import anomaly, incident, log

CALLS = {"frontend": ["ads", "catalog"]}


def _ads(during: Phase, *lines: str) -> str:
    """The first reading of ads, whose p99 rose, with the spans of `during` after the onset."""
    ctx = incident(
        kinds={"frontend": "service", "ads": "service", "catalog": "service"},
        edges=[("frontend", "ads", "depends_on"), ("frontend", "catalog", "depends_on")],
        alerting=["frontend"],
        anomalies=[anomaly("ads", "latency", metric="latency_p99_ms", baseline=60.0, after=900.0, score=39.0)],
        logs=[log("ads", line, onset_count=30) for line in lines],
    )
    spans = incident_spans(CALLS, "frontend", Phase(), during)
    ctx = Context.model_validate(
        ctx.model_dump() | {"trace_findings": trace_findings(spans, baseline=BASELINE, during=DURING)}
    )
    scores = {s.entity: s for s in score_entities(ctx)}
    return scores["ads"].signatures[0].fault_type


def test_latency_whose_calls_waited_no_longer_outside_its_spans_is_its_own_code() -> None:
    assert _ads(Phase()) == "deploy_regression"


def test_latency_whose_calls_waited_longer_outside_its_spans_is_its_network() -> None:
    assert _ads(Phase(network_ms={"ads": 80})) == "network_latency"


def test_a_service_saying_its_own_calls_timed_out_waits_on_something_else() -> None:
    assert _ads(Phase(), "java.net.SocketTimeoutException: Read timed out") == "network_latency"
