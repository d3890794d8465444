"""Exhaustion needs headroom used up (`engine/headroom.py`): a capacity share far from 1 is not saturation."""

from __future__ import annotations

from rootward.engine.headroom import drop_far_from_limit
from rootward.engine.hypotheses import rank_hypotheses
from tests.engine.small_incidents import anomaly, change, incident

KINDS = {"cart": "service", "node-1": "host"}
EDGES = [("cart", "node-1", "runs_on")]


def _shared_host_incident(host_peak: float) -> tuple[list[str], list[str]]:
    """cart fails right after its deploy, while the host it shares moves to `host_peak` of its CPUs."""
    ctx = incident(
        kinds=KINDS,
        edges=EDGES,
        alerting=["cart"],
        anomalies=[
            anomaly("cart", "errors", metric="error_rate", score=900.0, baseline=0.0, after=0.35),
            anomaly("node-1", "cpu", metric="cpu_used_ratio", score=60.0, baseline=0.3, after=host_peak),
        ],
        changes=[change("cart", minutes_before=0.5)],
    )
    kept, gaps = drop_far_from_limit(ctx, rank_hypotheses(ctx))
    return [f"{h.entity}/{h.fault_type}" for h in kept], gaps


def test_a_host_cpu_share_that_stays_well_under_its_limit_is_not_saturation_and_the_gap_says_so() -> None:
    kept, gaps = _shared_host_incident(0.6)
    assert "node-1/cpu_saturation" not in kept
    assert kept[0] == "cart/deploy_regression"
    assert gaps == [
        "node-1 cpu_used_ratio moved but peaked at 0.60 of capacity: too far from its limit for cpu_saturation"
    ]


def test_a_host_cpu_share_near_its_limit_stays_a_candidate() -> None:
    kept, gaps = _shared_host_incident(0.97)
    assert "node-1/cpu_saturation" in kept
    assert gaps == []
