"""Metrics specialist: did the series a fault type predicts move at the entity?"""

from __future__ import annotations

from rootward.context.anomaly import Anomaly, ScoredSeries
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding
from rootward.engine.signals import is_bad_direction, strength
from rootward.engine.specialists.base import EXPECTED_FAMILIES, FALLING_TRAFFIC, Specialist, finding
from rootward.engine.tail_latency import erratic, tail_only
from rootward.engine.tools import ToolLayer


class MetricsSpecialist(Specialist):
    name = "metrics"
    source = "metrics"
    manifest = frozenset({"metric_anomalies", "metric_scores"})

    def check(self, h: Hypothesis, tools: ToolLayer) -> Finding | None:
        expected = EXPECTED_FAMILIES.get(h.fault_type, frozenset())
        result = self.call(tools, "metric_anomalies", entity=h.entity)
        if result.status == "no_data":
            return finding(
                h, "inconclusive", 0.2, f"no metrics for {h.entity}; its fault can only be seen through others"
            )
        moved: list[Anomaly] = [a for a in result.data if a.family in expected and _as_expected(a, h.fault_type)]
        if moved:
            best = max(moved, key=lambda a: a.score)
            return finding(
                h,
                "validated",
                0.45 + 0.45 * strength(best.score),
                best.evidence.excerpt,
                [a.evidence for a in sorted(moved, key=lambda a: -a.score)[:3]],
            )
        scores = self.call(tools, "metric_scores", entity=h.entity)
        tail = max((a for a in result.data if a.family == "latency"), key=lambda a: a.score, default=None)
        if h.fault_type == "packet_loss" and tail is not None:
            # No loss series moved (or there is none): lost packets show as the tail alone slowing,
            # or as a latency that turned erratic, some seconds' requests waiting and others not.
            how = (
                "while its median latency held: a share of its requests waited"
                if h.entity in tail_only(scores.data)
                else "erratic about its new level: some seconds' requests waited and others not"
                if h.entity in erratic(scores.data)
                else ""
            )
            if how:
                return finding(
                    h,
                    "validated",
                    0.45 + 0.3 * strength(tail.score),
                    f"{tail.evidence.excerpt}, {how}, as a retransmission after a lost packet makes them",
                    [tail.evidence],
                )
        if h.fault_type == "memory_leak" and tail is not None and tail.shape == "ramp":
            watched = {s.family for s in scores.data}
            if "memory" not in watched:
                return finding(
                    h,
                    "validated",
                    0.35 + 0.3 * strength(tail.score),
                    f"{tail.evidence.excerpt}, climbing steadily; its memory is not watched",
                    [tail.evidence],
                )
        flat: list[ScoredSeries] = [s for s in scores.data if s.family in expected]
        unwatched = expected - {s.family for s in flat}
        if flat and not unwatched:
            names = ", ".join(sorted({s.metric for s in flat}))
            return finding(h, "invalidated", 0.55, f"{h.entity} {names} did not move beyond its baseline")
        if flat:
            # Only what was watched can be ruled out: errors with no error series may still have risen.
            names = ", ".join(sorted({s.metric for s in flat}))
            missing = ", ".join(sorted(unwatched))
            return finding(
                h, "inconclusive", 0.3, f"{h.entity} {names} did not move; it has no {missing} series of its own"
            )
        return finding(h, "inconclusive", 0.2, f"{h.entity} has no series of the kind {h.fault_type} would move")


def _as_expected(a: Anomaly, fault_type: str) -> bool:
    """Whether the series moved the way the fault moves it: the harmful way, and traffic down where it starves."""
    if a.family == "traffic" and fault_type in FALLING_TRAFFIC:
        return a.direction == "down"
    return is_bad_direction(a)
