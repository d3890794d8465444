"""A call edge with two to four calls before the onset, judged by the spread the system's other calls show."""

from __future__ import annotations

import random

from rootward.context.trace_evidence import TraceFinding, trace_findings
from rootward.domain.telemetry import Span
from tests.context.span_factory import BASELINE, DURING, Phase, incident_spans, request

CALLS = {"frontend": ["checkout", "catalog"], "checkout": ["payment", "cart"]}
RARE = {"batch": ["ledger"]}  # a job that runs a few times an hour


def _rare_calls(before: Phase, after: Phase, per_side: int = 3) -> list[Span]:
    """`per_side` runs of the rare job before the onset and as many after, numbered apart from the others."""
    rng = random.Random(11)
    out: list[Span] = []
    for side, phase, (lo, hi) in ((0, before, BASELINE), (1, after, DURING)):
        step = (hi - lo) / (per_side + 1)
        for i in range(per_side):
            out += request(10_000 + side * per_side + i, lo + step * (i + 1), "batch", RARE, phase, rng)
    return out


def _findings(spans: list[Span]) -> dict[tuple[str, str], TraceFinding]:
    return {(f.kind, f.where): f for f in trace_findings(spans, baseline=BASELINE, during=DURING)}


def test_a_rare_edge_that_became_many_times_slower_is_a_change() -> None:
    busy = incident_spans(CALLS, "frontend", Phase(), Phase())
    f = _findings(busy + _rare_calls(Phase(), Phase(network_ms={"ledger": 200})))
    slow = f[("network", "batch->ledger")]
    assert slow.n_before == 3 and slow.up
    assert not f[("callee_self_time", "batch->ledger")].changed  # the callee's own work did not change
    assert not f[("network", "checkout->payment")].changed


def test_a_rare_edge_within_the_systems_usual_spread_is_no_change() -> None:
    busy = incident_spans(CALLS, "frontend", Phase(), Phase())
    f = _findings(busy + _rare_calls(Phase(), Phase()))
    assert not f[("network", "batch->ledger")].changed
    assert not f[("call_latency", "batch->ledger")].changed


def test_a_rare_edge_is_not_judged_without_well_sampled_calls_to_borrow_a_spread_from() -> None:
    f = _findings(_rare_calls(Phase(), Phase(network_ms={"ledger": 200})))
    assert ("network", "batch->ledger") not in f


def test_one_call_before_the_onset_is_no_baseline() -> None:
    busy = incident_spans(CALLS, "frontend", Phase(), Phase())
    rare = _rare_calls(Phase(), Phase(network_ms={"ledger": 200}))
    first_after = min(s.start for s in rare if s.start >= BASELINE[1])
    before = sorted({s.trace_id for s in rare if s.start < first_after})
    rare = [s for s in rare if s.trace_id not in before[1:]]  # keep one run before the onset
    f = _findings(busy + rare)
    assert ("network", "batch->ledger") not in f
