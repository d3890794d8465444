"""A caller whose latency rose in the same sample as its callee's, by no more, passes the callee's slowness on."""

from __future__ import annotations

from rootward.engine.hypotheses import score_entities
from tests.engine.small_incidents import anomaly, incident

KINDS = {"orders": "service", "payments": "service"}
EDGES = [("orders", "payments", "depends_on")]


def _ranked(orders_after: float) -> dict[str, tuple[int, str | None]]:
    # Metrics only, scraped every few seconds: both series moved in the same sample, so the order
    # of their onsets says nothing. payments' answers took ~220 ms more.
    slow = [
        anomaly("orders", "latency", metric="latency_mean_ms", score=520.0, baseline=11.5, after=orders_after),
        anomaly("payments", "latency", metric="latency_mean_ms", score=980.0, baseline=5.1, after=226.0),
    ]
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["orders"], anomalies=slow)
    return {s.entity: (rank, s.victim_of) for rank, s in enumerate(score_entities(ctx), start=1)}


def test_a_caller_slower_by_what_its_callee_took_more_is_its_victim() -> None:
    ranked = _ranked(orders_after=224.0)
    assert ranked["payments"] == (1, None)
    assert ranked["orders"] == (2, "payments")


def test_a_caller_slower_by_much_more_than_its_callee_keeps_its_own_delay() -> None:
    """orders adds ~800 ms of its own on top of the callee's 220: that is not payments' doing."""
    assert _ranked(orders_after=1024.0)["orders"][1] is None
