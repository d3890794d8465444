"""A loud caller failing on a callee's off-path answers ranks below that callee.

pricing answers one call in seven wrongly, returning before its end line, and
checkout raises on exactly those answers: hundreds of failure lines and an
error series that soared, against pricing's quiet spans. The spans tie
checkout's failures to pricing's answers (`victims.fails_on_changed_answers`),
as they tie a caller's failures to a freshly deployed callee's, so checkout is
ranked below pricing, not only discounted: a discount alone left the loud
victim first (TrainTicket-like bundles in minute blocks, a meal service's
wrong answers behind a ticket service's failures, third). The spans here are
few, as in three-minute blocks of a rarely called service: the failures in
checkout's own spans fall short of their test, and only its failure lines and
pricing's off-path answers say what happened.
"""

from __future__ import annotations

from dataclasses import replace

import networkx as nx

from rootward.context.assemble import Context
from rootward.context.trace_evidence import TraceFinding
from rootward.engine.hypotheses import rank_hypotheses, score_entities
from rootward.engine.signals import EntityProfile
from rootward.engine.trace_attribution import TraceAttribution, attribute_traces
from rootward.engine.victims import fails_on_changed_answers
from tests.context.span_factory import Phase
from tests.context.test_answers_off_path import _findings, _mixed
from tests.context.test_log_span_paths import CHAIN
from tests.engine.small_incidents import anomaly, change, incident, log

THIN = frozenset({"errors", "origin_errors", "errors_after", "call_errors"})  # too few calls to pass their own tests


def _thin_spans() -> list[TraceFinding]:
    found = _findings(*_mixed(Phase(wrong_answers=frozenset({"pricing"})), frozenset({"pricing"})))
    return [f.model_copy(update={"changed": False}) if f.kind in THIN else f for f in found]


def _loud_caller() -> Context:
    found = _thin_spans()
    names = list(dict.fromkeys([*CHAIN, *(c for cs in CHAIN.values() for c in cs)]))
    edges = [(a, b, "depends_on") for a, cs in CHAIN.items() for b in cs]
    ctx = incident(
        kinds={n: "service" for n in names},
        edges=edges,
        alerting=["frontend"],
        anomalies=[anomaly("checkout", "errors", metric="error_rate", score=400.0)],
        logs=[log("checkout", "order <*> rejected: total does not add up", onset_count=400)],
    )
    return ctx.model_copy(update={"trace_findings": found, "telemetry": {n: ["traces"] for n in names}})


def test_a_loud_caller_failing_on_a_callees_off_path_answers_ranks_below_it() -> None:
    scores = {s.entity: s for s in score_entities(_loud_caller())}
    assert scores["checkout"].victim_of == "pricing"
    assert scores["checkout"].score <= scores["pricing"].score
    assert any("ranked below pricing" in r for r in scores["checkout"].reasons)
    top = rank_hypotheses(_loud_caller())[0]
    assert (top.entity, top.fault_type) == ("pricing", "deploy_regression")


def test_the_answers_weigh_as_the_failures_after_them_even_too_few_to_pass_their_own_test() -> None:
    """The caller's failures after the answers rose too little to pass the share test on their own;
    that they follow these answers has passed it, so they weigh as errors originating in pricing."""
    hints = attribute_traces(_thin_spans())["pricing"].hints
    assert next(h for h in hints if "skipped a line" in h.reason).score > 0


def test_a_caller_deployed_itself_fails_on_a_callees_answers_when_another_caller_does_too() -> None:
    """checkout's own new version may ask pricing something else, so its failing right after
    pricing's off-path answers stays its own; not when catalog, not deployed, fails on them too."""
    g = nx.DiGraph([("checkout", "pricing"), ("catalog", "pricing")])
    checkout = EntityProfile(
        "checkout",
        "service",
        True,
        own_logs=[log("checkout", "order <*> rejected: total does not add up")],
        changes=[change("checkout", minutes_before=5)],
    )

    def fails_on(failed_on_by: set[str]) -> str | None:
        pricing = TraceAttribution("pricing", other_paths=True, failed_on_by=frozenset(failed_on_by))
        return fails_on_changed_answers("checkout", checkout, g, {"pricing": pricing})

    assert fails_on({"checkout"}) is None
    assert fails_on({"checkout", "catalog"}) == "pricing"
    assert fails_on({"catalog"}) is None  # checkout's failures did not follow those answers
    quiet = replace(checkout, changes=[])
    pricing = TraceAttribution("pricing", other_paths=True, failed_on_by=frozenset({"checkout"}))
    assert fails_on_changed_answers("checkout", quiet, g, {"pricing": pricing}) == "pricing"
