"""A caller whose errors began clearly after its callee got slow, with no failure lines of its own, passes it on.

Metrics alone, no logs: a callee's p99 steps up, and a minute later its caller
starts failing (its requests time out). The caller's error series is the
louder one, but it is the callee's slowness seen as errors.
"""

from __future__ import annotations

from rootward.engine.hypotheses import score_entities
from tests.engine.small_incidents import anomaly, incident


def _first(callee_starts_s: int, caller_starts_s: int, callee_shape: str = "step") -> str:
    slow = anomaly("ledger", "latency", metric="latency_p99_ms", score=25, starts_s=callee_starts_s, shape=callee_shape)
    ctx = incident(
        kinds={"gateway": "service", "checkout": "service", "ledger": "service"},
        edges=[("gateway", "checkout", "depends_on"), ("checkout", "ledger", "depends_on")],
        alerting=["gateway"],
        anomalies=[
            slow,
            anomaly("checkout", "errors", metric="error_rate", score=80, starts_s=caller_starts_s),
            anomaly("checkout", "latency", metric="latency_p99_ms", score=40, starts_s=caller_starts_s),
            anomaly("gateway", "errors", metric="error_rate", score=30, starts_s=caller_starts_s + 30),
        ],
    )
    return score_entities(ctx)[0].entity


def test_errors_that_began_a_minute_after_the_callee_got_slow_are_the_callees() -> None:
    assert _first(callee_starts_s=0, caller_starts_s=60) == "ledger"


def test_a_callee_slowed_in_the_same_breath_does_not_explain_the_callers_errors() -> None:
    assert _first(callee_starts_s=0, caller_starts_s=15) == "checkout"


def test_a_callee_slow_now_and_then_makes_no_caller_fail_on_cue() -> None:
    assert _first(callee_starts_s=0, caller_starts_s=60, callee_shape="resets") == "checkout"
