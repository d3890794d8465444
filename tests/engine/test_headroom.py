"""Exhaustion needs headroom used up (`engine/headroom.py`): a capacity share far from 1 is not saturation."""

from __future__ import annotations

from rootward.context.assemble import Context
from rootward.domain.hypothesis import Hypothesis
from rootward.engine.headroom import drop_far_from_limit
from rootward.engine.hypotheses import rank_hypotheses
from tests.engine.small_incidents import anomaly, change, incident

KINDS = {"cart": "service", "node-1": "host"}
EDGES = [("cart", "node-1", "runs_on")]


def _deploy_beside_a_busy_host(host_score: float, after: float, peak: float) -> Context:
    """cart fails right after its deploy, while the host it shares moves to `after` of its CPUs."""
    return incident(
        kinds=KINDS,
        edges=EDGES,
        alerting=["cart"],
        anomalies=[
            anomaly("cart", "errors", metric="error_rate", score=900.0, baseline=0.0, after=0.35),
            anomaly("node-1", "cpu", metric="cpu_used_ratio", score=host_score, baseline=0.3, after=after, peak=peak),
        ],
        changes=[change("cart", minutes_before=0.5)],
    )


def _shared_host_incident(after: float, peak: float) -> tuple[list[str], list[str]]:
    ctx = _deploy_beside_a_busy_host(60.0, after, peak)
    kept, gaps = drop_far_from_limit(ctx, rank_hypotheses(ctx))
    return [f"{h.entity}/{h.fault_type}" for h in kept], gaps


def test_a_host_cpu_share_held_well_under_its_limit_is_not_saturation_and_the_gap_says_so() -> None:
    kept, gaps = _shared_host_incident(0.6, 0.85)  # bursts to 0.85, but held 0.6: contention now and then
    assert "node-1/cpu_saturation" not in kept
    assert kept[0] == "cart/deploy_regression"
    assert gaps == [
        "node-1 cpu_used_ratio moved but held 0.60 of capacity after the onset (peak 0.85): "
        "too far from its limit for cpu_saturation"
    ]


def test_a_host_cpu_share_held_near_its_limit_stays_a_candidate() -> None:
    kept, gaps = _shared_host_incident(0.93, 0.99)
    assert "node-1/cpu_saturation" in kept
    assert gaps == []


def test_memory_is_a_level_so_its_peak_is_what_meets_the_limit() -> None:
    ctx = incident(
        kinds={"node-1": "host"},
        alerting=["node-1"],
        anomalies=[
            low := anomaly("node-1", "memory", metric="memory_used_ratio", baseline=0.2, after=0.5, peak=0.6),
            anomaly("node-2", "memory", metric="memory_used_ratio", baseline=0.2, after=0.5, peak=0.9),
        ],
    )
    high = ctx.anomalies[1]
    leaks = [
        Hypothesis("H1", "node-1", "memory_leak", 0.5, [low.evidence]),
        Hypothesis("H2", "node-2", "memory_leak", 0.5, [high.evidence]),
    ]
    kept, gaps = drop_far_from_limit(ctx, leaks)
    assert [h.entity for h in kept] == ["node-2"]
    assert gaps == [
        "node-1 memory_used_ratio moved but peaked at 0.60 of capacity: too far from its limit for memory_leak"
    ]


def test_a_service_that_failed_right_after_its_deploy_is_not_the_victim_of_a_busy_host() -> None:
    # The host is near its limit but only weakly moved; cart has no logs or resource series of its
    # own, yet its deploy just before its errors is evidence of its own.
    ranked = rank_hypotheses(_deploy_beside_a_busy_host(8.0, 0.9, 0.95))
    assert (ranked[0].entity, ranked[0].fault_type) == ("cart", "deploy_regression")
    assert not any("point at its dependency" in r for r in ranked[0].rationale)


def test_a_loss_ratio_that_stayed_under_one_packet_in_a_thousand_is_not_packet_loss() -> None:
    ctx = incident(
        kinds={"node-1": "host", "node-2": "host", "node-3": "host"},
        alerting=["node-1"],
        anomalies=[
            anomaly("node-1", "packet_loss", metric="packet_loss_ratio", baseline=1e-6, after=2e-6, peak=3e-6),
            anomaly("node-2", "packet_loss", metric="packet_loss_ratio", baseline=1e-4, after=0.05, peak=0.08),
            anomaly("node-3", "packet_loss", metric="rx_loss_percent", baseline=0.0, after=0.02, peak=0.05),
        ],
    )
    losses = [Hypothesis(f"H{i}", a.service, "packet_loss", 0.3, [a.evidence]) for i, a in enumerate(ctx.anomalies)]
    kept, gaps = drop_far_from_limit(ctx, losses)
    assert [h.entity for h in kept] == ["node-2"]  # 0.05 % is a share of 0.0005: under the floor too
    assert gaps == [
        "node-1 packet_loss_ratio moved but peaked at 0.0003% of packets: too little loss for packet_loss",
        "node-3 rx_loss_percent moved but peaked at 0.0500% of packets: too little loss for packet_loss",
    ]
