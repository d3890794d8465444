"""A caller whose calls time out is the victim of the callee its spans show slower, however quiet that one is."""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from rootward.context.log_signals import LogSignal
from rootward.context.trace_evidence import trace_findings
from rootward.engine.signals import EntityProfile
from rootward.engine.trace_attribution import attribute_traces
from rootward.engine.victims import victim_of_dependency
from tests.context.span_factory import BASELINE, DURING, Phase, incident_spans
from tests.engine.small_incidents import ONSET_S, anomaly, log

SHOP = {"frontend": ["checkout", "catalog"], "checkout": ["payment", "cart"]}


def test_the_calls_that_got_slower_are_named_per_caller() -> None:
    spans = incident_spans(SHOP, "frontend", Phase(), Phase(network_ms={"cart": 80}))
    by = attribute_traces(trace_findings(spans, baseline=BASELINE, during=DURING))
    assert by["checkout"].slowed_callees == {"cart"}
    assert by["frontend"].slowed_callees == {"checkout"}
    assert by["cart"].slowed_callees == frozenset()


def test_a_call_slowed_by_its_network_is_slowed_though_the_callee_varies_more() -> None:
    """A delay on cart's network adds 60 ms to every call; cart's own 200 ms work varies by a fifth.

    The whole call, as checkout saw it, moved less than its spread, so it read as unchanged and a
    caller timing out on cart was nobody's victim; the part of the call cart's spans do not cover
    moved from nothing to 60 ms, a material part of the call.
    """
    before, after = Phase(own_ms={"cart": 200}), Phase(own_ms={"cart": 200}, network_ms={"cart": 60})
    findings = trace_findings(incident_spans(SHOP, "frontend", before, after), baseline=BASELINE, during=DURING)
    call = next(f for f in findings if f.kind == "call_latency" and (f.caller, f.entity) == ("checkout", "cart"))
    assert not call.changed
    assert attribute_traces(findings)["checkout"].slowed_callees == {"cart"}
    # A few milliseconds more outside a 200 ms call is no slower call.
    before, after = Phase(own_ms={"cart": 200}), Phase(own_ms={"cart": 200}, network_ms={"cart": 5})
    findings = trace_findings(incident_spans(SHOP, "frontend", before, after), baseline=BASELINE, during=DURING)
    assert attribute_traces(findings)["checkout"].slowed_callees == frozenset()


def _victim(slowed: frozenset[str], traced_own: bool = False) -> str | None:
    """fraud times out on some of its calls; scoring's own series and lines show nothing (its network is slow)."""
    timeouts = log("fraud", "Error: request to <URL> failed, reason: ETIMEDOUT <*>", onset_count=74)
    profiles = {
        "fraud": EntityProfile(
            "fraud",
            "service",
            True,
            own_logs=[timeouts],
            symptoms=[anomaly("fraud", "latency", metric="latency_p99_ms")],
            onset=ONSET_S,
        ),
        "scoring": EntityProfile("scoring", "service", True),
    }
    g = nx.DiGraph()
    g.add_edge("fraud", "scoring", relation="depends_on")
    borrowed: dict[str, list[LogSignal]] = defaultdict(list)
    return victim_of_dependency(
        "fraud", profiles["fraud"], g, profiles, borrowed, ONSET_S, 0.0, False, traced_own, slowed_calls=slowed
    )


def test_timing_out_on_calls_the_spans_show_slower_is_that_callees_doing() -> None:
    assert _victim(frozenset()) is None  # nothing of scoring moved: before, fraud kept its timeouts
    assert _victim(frozenset({"scoring"})) == "scoring"


def test_a_caller_whose_spans_changed_on_their_own_keeps_its_timeouts() -> None:
    assert _victim(frozenset({"scoring"}), traced_own=True) is None
