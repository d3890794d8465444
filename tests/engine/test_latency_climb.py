"""Latency that climbed steadily with no resource behind it: a delay on the path first, a leak second."""

from __future__ import annotations

from rootward.engine.hypotheses import rank_hypotheses, score_entities
from tests.engine.small_incidents import anomaly, incident


def _slow(shape: str):  # type: ignore[no-untyped-def]
    """A function whose duration rose with nothing else of it moving (no memory series: a managed runtime)."""
    return incident(
        kinds={"api": "service", "orders-fn": "service"},
        edges=[("api", "orders-fn", "depends_on")],
        alerting=["api"],
        anomalies=[anomaly("orders-fn", "latency", metric="Duration", baseline=300, after=900, shape=shape)],
    )


def test_a_latency_climb_reads_as_a_delay_first_and_a_leak_second() -> None:
    """A leak slows its process more as it grows, where a delay steps: without a memory series, the
    climb is the only sign of it, a second reading, so a delay stays first."""
    scores = {s.entity: s for s in score_entities(_slow("ramp"))}
    readings = [sig.fault_type for sig in scores["orders-fn"].signatures]
    assert readings[:2] == ["network_latency", "memory_leak"]
    top3 = [(h.entity, h.fault_type) for h in rank_hypotheses(_slow("ramp"))[:3]]
    assert ("orders-fn", "memory_leak") in top3


def test_a_latency_step_is_no_leak() -> None:
    scores = {s.entity: s for s in score_entities(_slow("step"))}
    assert "memory_leak" not in [sig.fault_type for sig in scores["orders-fn"].signatures]
