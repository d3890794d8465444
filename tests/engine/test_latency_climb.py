"""Latency that climbed steadily with no resource behind it: a leak first, a delay on the path second."""

from __future__ import annotations

from rootward.context.anomaly import ScoredSeries
from rootward.context.assemble import Context
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import TraceEntry
from rootward.engine.budget import Budget
from rootward.engine.hypotheses import rank_hypotheses, score_entities
from rootward.engine.specialists.metrics import MetricsSpecialist
from rootward.engine.tools import ToolLayer, context_tools
from tests.engine.small_incidents import ONSET_S, anomaly, incident


def _slow(shape: str) -> Context:
    """A function whose duration rose with nothing else of it moving (no memory series: a managed runtime)."""
    return incident(
        kinds={"api": "service", "orders-fn": "service"},
        edges=[("api", "orders-fn", "depends_on")],
        alerting=["api"],
        anomalies=[anomaly("orders-fn", "latency", metric="Duration", baseline=300, after=900, shape=shape)],
    )


def test_a_latency_climb_reads_as_a_leak_first_and_a_delay_second() -> None:
    """A leak slows its process more as it grows, where a delay steps: a climb is a leak's shape."""
    scores = {s.entity: s for s in score_entities(_slow("ramp"))}
    readings = [sig.fault_type for sig in scores["orders-fn"].signatures]
    assert readings[:2] == ["memory_leak", "network_latency"]
    top = rank_hypotheses(_slow("ramp"))[0]
    assert (top.entity, top.fault_type) == ("orders-fn", "memory_leak")


def test_a_latency_step_is_no_leak() -> None:
    scores = {s.entity: s for s in score_entities(_slow("step"))}
    assert "memory_leak" not in [sig.fault_type for sig in scores["orders-fn"].signatures]


def _leak_status(ctx: Context) -> str:
    specialist = MetricsSpecialist()
    layer = ToolLayer(specialist.name, specialist.manifest, context_tools(ctx), Budget(), list[TraceEntry]())
    found = specialist.check(Hypothesis("H1", "orders-fn", "memory_leak", 0.5), layer)
    assert found is not None
    return found.status


def test_the_metrics_specialist_validates_a_leak_from_the_climb_only_where_memory_is_unwatched() -> None:
    assert _leak_status(_slow("ramp")) == "validated"
    assert _leak_status(_slow("step")) != "validated"
    flat = ScoredSeries(
        service="orders-fn",
        metric="memory_bytes",
        family="memory",
        score=0.5,
        signed=0.5,
        baseline=2e8,
        after=2e8,
        peak=2e8,
        onset=ONSET_S,
    )
    watched = _slow("ramp").model_copy(update={"series": [flat]})
    assert _leak_status(watched) == "invalidated"  # its memory was watched and held
