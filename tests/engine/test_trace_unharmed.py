"""Calls the spans timed after the onset, unchanged, carried no fault to a caller whose spans changed on their own."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import networkx as nx

from rootward.context.log_signals import LogSignal
from rootward.context.trace_evidence import trace_findings
from rootward.engine.signals import EntityProfile
from rootward.engine.trace_attribution import TraceAttribution, attribute_traces
from rootward.engine.victims import victim_of_dependency
from tests.context.span_factory import BASELINE, DURING, Phase, incident_spans
from tests.engine.small_incidents import ONSET, log

SHOP = {"frontend": ["checkout", "catalog"], "checkout": ["payment", "cart"]}
SHARED = {"frontend": ["checkout", "catalog"], "checkout": ["pricing", "payment"], "catalog": ["pricing"]}


def _attribute(
    calls: Mapping[str, Sequence[str]], after: Phase, before: Phase | None = None
) -> dict[str, TraceAttribution]:
    spans = incident_spans(calls, "frontend", before or Phase(), after)
    return attribute_traces(trace_findings(spans, baseline=BASELINE, during=DURING))


def test_calls_the_spans_timed_and_saw_unchanged_are_unharmed() -> None:
    by = _attribute(SHOP, Phase(network_ms={"cart": 80}))
    assert by["checkout"].unharmed_callees == {"payment"}  # the calls to cart slowed
    assert by["frontend"].unharmed_callees == {"catalog"}  # checkout's answers slowed with cart's


def test_calls_after_which_the_caller_raises_are_not_unharmed() -> None:
    """Nothing of pricing's own spans changed, but its callers fail right after its answers: the calls carried it."""
    by = _attribute(SHARED, Phase(wrong_answers=frozenset({"pricing"})))
    assert "pricing" not in by["checkout"].unharmed_callees
    assert "pricing" not in by["catalog"].unharmed_callees


def test_calls_whose_failures_the_spans_cannot_count_are_not_unharmed() -> None:
    """Spans with no status (and no lines to take it from) time the calls but cannot show them failing."""
    by = _attribute(SHOP, Phase(network_ms={"cart": 80}, status=False), before=Phase(status=False))
    assert by["checkout"].unharmed_callees == frozenset()


def _retrying_dependency(retries: int) -> dict[str, EntityProfile]:
    retry = log("trains", "retrying idempotent call attempt=<NUM>", onset_count=retries, severity="warning")
    failing = log("core", "request failed status=<NUM>", onset_count=20)
    return {
        "core": EntityProfile("core", "service", True, own_logs=[failing], onset=int(ONSET.timestamp()) + 60),
        "trains": EntityProfile("trains", "service", True, own_logs=[retry], onset=int(ONSET.timestamp()) + 5),
    }


def _victim(unharmed_calls: frozenset[str], traced_own: bool, retries: int = 1) -> str | None:
    g = nx.DiGraph()
    g.add_edge("core", "trains", relation="depends_on")
    profiles = _retrying_dependency(retries)
    borrowed: dict[str, list[LogSignal]] = defaultdict(list)
    return victim_of_dependency(
        "core", profiles["core"], g, profiles, borrowed, None, 0.0, False, traced_own, unharmed_calls=unharmed_calls
    )


def test_a_failure_is_not_passed_on_from_a_dependency_that_barely_failed_over_calls_that_did_not_change() -> None:
    """core fails after a dependency logged one retry; its spans show a change of its own, its calls to trains none."""
    assert _victim(frozenset(), traced_own=True) == "trains"
    assert _victim(frozenset({"trains"}), traced_own=True) is None


def test_unchanged_calls_clear_neither_a_clearly_failing_dependency_nor_a_caller_with_no_change_of_its_own() -> None:
    """Spans can miss what failed: sampled traces, a client that never connected writes no span."""
    assert _victim(frozenset({"trains"}), traced_own=True, retries=5) == "trains"
    assert _victim(frozenset({"trains"}), traced_own=False) == "trains"
