"""A caller whose latency rose in the same sample as its callee's, by no more, passes the callee's slowness on."""

from __future__ import annotations

from rootward.context.anomaly import ScoredSeries
from rootward.engine.hypotheses import score_entities
from tests.engine.small_incidents import ONSET_S, anomaly, incident

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


def _live(orders_level: float, *, counts_errors: bool) -> dict[str, tuple[int, str | None]]:
    """As scraped through a 10 s rate window: both climbed over four samples to where they held. payments'
    post-onset median came from a stretch starting a sample earlier on the climb (232 ms), orders' from one
    on the plateau (312 ms); where each held, payments took 300 ms more and orders as much (or more)."""
    slow = [
        anomaly("orders", "latency", metric="latency_mean_ms", baseline=11.5, after=312.0, shape="ramp"),
        anomaly("payments", "latency", metric="latency_mean_ms", baseline=5.1, after=232.0, shape="ramp"),
    ]
    slow = [
        slow[0].model_copy(update={"level": orders_level}),
        slow[1].model_copy(update={"level": 305.5}),
    ]
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["orders"], anomalies=slow)
    if counts_errors:  # its error series was scored and did not move
        quiet = ScoredSeries(
            service="orders", metric="error_rate", family="errors", score=0.4, signed=0.4,
            baseline=0.0, after=0.0, peak=0.01, onset=ONSET_S,
        )  # fmt: skip
        ctx = ctx.model_copy(update={"series": [quiet]})
    return {s.entity: (rank, s.victim_of) for rank, s in enumerate(score_entities(ctx), start=1)}


def test_the_rise_is_read_where_each_series_held_not_from_medians_taken_at_different_moments() -> None:
    assert _live(312.4, counts_errors=False)["orders"] == (2, "payments")
    assert _live(612.0, counts_errors=False)["orders"][1] is None  # 600 ms more where it held: its own too


def test_a_caller_whose_error_series_did_not_move_passes_on_a_callee_that_got_as_slow() -> None:
    assert _live(312.4, counts_errors=True)["orders"] == (2, "payments")
    assert _live(612.0, counts_errors=True)["orders"][1] is None
