"""Lost packets slow the requests they hit and leave the rest: the tail rises, the median holds.

A service in a 1-second metrics-only set (p50 and p90 per service, no loss series)
losing 5-50 % of its packets read as a delay on its network: every loss was named
`network_latency`. A delay moves the median as far as the tail; loss moves the tail.
"""

from __future__ import annotations

from rootward.context.anomaly import ScoredSeries
from rootward.context.assemble import Context
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import TraceEntry
from rootward.engine.budget import Budget
from rootward.engine.hypotheses import score_entities
from rootward.engine.specialists.metrics import MetricsSpecialist
from rootward.engine.tail_latency import tail_only
from rootward.engine.tools import ToolLayer, context_tools
from tests.engine.small_incidents import ONSET_S, anomaly, incident


def _scored(metric: str, baseline: float, after: float, score: float) -> ScoredSeries:
    return ScoredSeries(
        service="cart",
        metric=metric,
        family="latency",
        score=score,
        signed=score,
        baseline=baseline,
        after=after,
        peak=after,
        onset=ONSET_S,
    )


LOSS = (_scored("latency_p50_ms", 20.0, 21.0, 1.0), _scored("latency_p90_ms", 60.0, 700.0, 90.0))
DELAY = (_scored("latency_p50_ms", 20.0, 220.0, 400.0), _scored("latency_p90_ms", 60.0, 270.0, 80.0))
SATURATION = (_scored("latency_p50_ms", 20.0, 60.0, 60.0), _scored("latency_p90_ms", 60.0, 180.0, 30.0))


def test_the_tail_alone_rising_is_read_so_and_nothing_else_is() -> None:
    assert tail_only(LOSS) == {"cart"}
    assert tail_only(DELAY) == set()
    assert tail_only(SATURATION) == set()
    assert tail_only(LOSS[1:]) == set()  # no median to hold: nothing says the rest were unharmed
    raw = [s.model_copy(update={"metric": m}) for s, m in zip(LOSS, ("latency-50", "latency-90"), strict=True)]
    assert tail_only(raw) == {"cart"}  # RCAEval's names


def _ctx(series: tuple[ScoredSeries, ...]) -> Context:
    tail = series[-1]
    moved = anomaly("cart", "latency", metric=tail.metric, score=tail.score, baseline=tail.baseline, after=tail.after)
    ctx = incident(kinds={"cart": "service"}, alerting=["cart"], anomalies=[moved])
    return ctx.model_copy(update={"series": list(series)})


def _top_fault(series: tuple[ScoredSeries, ...]) -> str:
    (cart,) = score_entities(_ctx(series))
    return max(cart.signatures, key=lambda s: s.score).fault_type


def test_latency_with_nothing_behind_it_reads_as_loss_when_only_its_tail_rose() -> None:
    assert _top_fault(LOSS) == "packet_loss"
    assert _top_fault(LOSS[1:]) == "network_latency"
    assert _top_fault(DELAY) == "network_latency"


def test_the_metrics_specialist_finds_loss_in_a_tail_that_rose_alone() -> None:
    def status(series: tuple[ScoredSeries, ...]) -> str:
        specialist = MetricsSpecialist()  # a fresh one: a specialist keeps its tools' answers per investigation
        layer = ToolLayer(
            specialist.name, specialist.manifest, context_tools(_ctx(series)), Budget(), list[TraceEntry]()
        )
        found = specialist.check(Hypothesis("H1", "cart", "packet_loss", 0.5), layer)
        assert found is not None
        return found.status

    assert status(LOSS) == "validated"
    assert status(DELAY) != "validated"


def test_a_tail_that_rose_in_the_scores_but_is_no_anomaly_validates_nothing() -> None:
    """The scores and the anomalies are read apart: a tail the detector dropped is no evidence to cite."""
    specialist = MetricsSpecialist()
    ctx = _ctx(LOSS).model_copy(update={"anomalies": []})
    layer = ToolLayer(specialist.name, specialist.manifest, context_tools(ctx), Budget(), list[TraceEntry]())
    found = specialist.check(Hypothesis("H1", "cart", "packet_loss", 0.5), layer)
    assert found is not None and found.status != "validated"
