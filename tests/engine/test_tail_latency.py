"""Lost packets slow the requests they hit and leave the rest: the tail rises, the median holds.

A service in a 1-second metrics-only set (p50 and p90 per service, no loss series)
losing 5-50 % of its packets read as a delay on its network: every loss was named
`network_latency`. A delay moves the median as far as the tail; loss moves the tail.
Where losses are frequent the median moves too, and the series turns erratic instead:
a delay moves every sample alike.
"""

from __future__ import annotations

import random

import numpy as np

from rootward.context.anomaly import ScoredSeries, relative_spreads
from rootward.context.assemble import Context
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import TraceEntry
from rootward.engine.budget import Budget
from rootward.engine.hypotheses import score_entities
from rootward.engine.specialists.metrics import MetricsSpecialist
from rootward.engine.tail_latency import erratic, tail_only
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
    assert status(ERRATIC) == "validated"
    assert status(tuple(s.model_copy(update={"spread_after": s.spread_before}) for s in ERRATIC)) != "validated"


def test_a_tail_that_rose_in_the_scores_but_is_no_anomaly_validates_nothing() -> None:
    """The scores and the anomalies are read apart: a tail the detector dropped is no evidence to cite."""
    specialist = MetricsSpecialist()
    ctx = _ctx(LOSS).model_copy(update={"anomalies": []})
    layer = ToolLayer(specialist.name, specialist.manifest, context_tools(ctx), Budget(), list[TraceEntry]())
    found = specialist.check(Hypothesis("H1", "cart", "packet_loss", 0.5), layer)
    assert found is not None and found.status != "validated"


def _per_second(after_s: int, shift: float, rto_share: float, early_onset_s: int = 0) -> tuple[np.ndarray, ...]:
    """10 minutes of a 100 ms latency at 2 % noise, then `after_s` seconds `shift` ms higher; in `rto_share`
    of those seconds a retransmission (200-1000 ms) comes on top. The onset is read `early_onset_s` early."""
    rng = random.Random(7)
    ts = np.arange(0, 600 + after_s, dtype=np.int64)
    vs = np.array([100.0 * rng.gauss(1.0, 0.02) for _ in ts])
    after = ts >= 600
    vs[after] += shift
    hit = np.array([rng.random() < rto_share for _ in ts]) & after
    vs[hit] += np.array([rng.uniform(200, 1000) for _ in range(int(hit.sum()))])
    return ts, vs, np.int64(600 - early_onset_s)


def test_a_delay_moves_a_latency_as_a_block_and_losses_make_it_erratic() -> None:
    ts, vs, onset = _per_second(300, 150.0, 0.0)
    before, after = relative_spreads(ts, vs, int(onset), int(ts[-1]))
    assert 0 < after <= before  # the same noise about a higher level
    ts, vs, onset = _per_second(300, 150.0, 0.0, early_onset_s=60)
    before, after = relative_spreads(ts, vs, int(onset), int(ts[-1]))
    assert after < 1.5 * before  # the step inside the window disturbs only the samples next to it
    ts, vs, onset = _per_second(300, 0.0, 0.6)
    before, after = relative_spreads(ts, vs, int(onset), int(ts[-1]))
    assert after > 5 * before
    ts, vs, onset = _per_second(10, 0.0, 0.6)
    assert relative_spreads(ts, vs, int(onset), int(ts[-1])) == (0.0, 0.0)  # too few samples since


ERRATIC = (
    _scored("latency_p50_ms", 20.0, 300.0, 80.0).model_copy(update={"spread_before": 0.03, "spread_after": 0.4}),
    _scored("latency_p90_ms", 60.0, 900.0, 90.0).model_copy(update={"spread_before": 0.08, "spread_after": 0.3}),
)


def test_a_latency_that_turned_erratic_reads_as_loss_and_a_steady_one_as_delay() -> None:
    assert erratic(ERRATIC) == {"cart"} and tail_only(ERRATIC) == set()
    steady = tuple(s.model_copy(update={"spread_after": s.spread_before}) for s in ERRATIC)
    assert erratic(steady) == set()
    wobble = tuple(s.model_copy(update={"spread_before": 0.01, "spread_after": 0.03}) for s in ERRATIC)
    assert erratic(wobble) == set()  # three times a tiny spread is still steady
    assert _top_fault(ERRATIC) == "packet_loss"
    assert _top_fault(steady) == "network_latency"
