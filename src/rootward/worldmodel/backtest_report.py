"""What a backtest reports: coverage against the shuffled control, timing, per topology.

Per case, the scorer records how much of what alerted the prediction covered
(probability-weighted and as a share), the same for the shuffled controls,
and the timing of the entities it predicted: how many alerted inside their
predicted delay window, and how far the first alert was from the predicted
typical delay. The report averages cases, overall and per topology, so a
model that is right on one estate and wrong on another cannot hide behind the
mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import mean, median
from typing import Any

# Shuffled graphs per topology: enough that the control's mean does not hang on one lucky rewiring.
SHUFFLES = 20
TARGET_COVERAGE = 0.5
TARGET_CONTROL_RATIO = 0.3


@dataclass(frozen=True)
class CaseResult:
    name: str
    root: str
    observed: int
    hit_coverage: float
    coverage: float
    control_hit_coverage: float | None
    control_coverage: float | None
    missed: tuple[str, ...] = ()
    late: tuple[str, ...] = ()  # predicted entities whose alert fell outside the predicted delay window
    timed: bool = False
    topology: str = ""
    timed_predicted: int = 0  # observed entities in the prediction with a known arrival
    timing_errors_s: tuple[float, ...] = ()  # |arrival - predicted p50| for each of them


def _mean(values: Sequence[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return mean(kept) if kept else 0.0


def summarize(cases: Sequence[CaseResult]) -> dict[str, Any]:
    """Coverage, control, ratios and timing over `cases` (means of per-case figures)."""
    coverage = _mean([c.coverage for c in cases])
    control = _mean([c.control_coverage for c in cases])
    hit, control_hit = _mean([c.hit_coverage for c in cases]), _mean([c.control_hit_coverage for c in cases])
    predicted = sum(c.timed_predicted for c in cases)
    on_time = predicted - sum(len(c.late) for c in cases if c.timed)
    errors = [e for c in cases for e in c.timing_errors_s]
    return {
        "cases": len(cases),
        "timed_cases": sum(1 for c in cases if c.timed),
        "coverage": round(coverage, 4),
        "control_coverage": round(control, 4),
        "control_ratio": round(control / coverage, 4) if coverage else None,
        "hit_coverage": round(hit, 4),
        "control_hit_coverage": round(control_hit, 4),
        "hit_control_ratio": round(control_hit / hit, 4) if hit else None,
        "timing_accuracy": round(on_time / predicted, 4) if predicted else None,
        "timing_median_error_s": round(median(errors), 1) if errors else None,
    }


@dataclass(frozen=True)
class BacktestReport:
    cases: tuple[CaseResult, ...]
    skipped: tuple[str, ...] = field(default_factory=tuple)
    seed: int = 0
    shuffles: int = SHUFFLES
    learned: bool = True

    def topologies(self) -> dict[str, dict[str, Any]]:
        names = sorted({c.topology for c in self.cases})
        return {name: summarize([c for c in self.cases if c.topology == name]) for name in names}

    def to_json(self) -> dict[str, Any]:
        return {
            **summarize(self.cases),
            "skipped": list(self.skipped),
            "seed": self.seed,
            "shuffles": self.shuffles,
            "learned_dynamics": self.learned,
            "target_coverage": TARGET_COVERAGE,
            "target_control_ratio": TARGET_CONTROL_RATIO,
            "per_topology": self.topologies(),
            "per_case": [
                {
                    "name": c.name,
                    "topology": c.topology,
                    "root": c.root,
                    "observed": c.observed,
                    "coverage": round(c.coverage, 4),
                    "hit_coverage": round(c.hit_coverage, 4),
                    "control_coverage": None if c.control_coverage is None else round(c.control_coverage, 4),
                    "missed": list(c.missed),
                    "mistimed": list(c.late),
                    "timed": c.timed,
                }
                for c in self.cases
            ],
        }
