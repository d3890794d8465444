"""Mechanical verification: what happened after an action, compared with what was predicted.

Only alerts that started inside the prediction window (execution time plus
`window_s`) count. Then, in order of severity:

- `deviation`: some entity alerted that the prediction did not name;
- `partial`: only predicted entities alerted, but some alert was not among the
  ones predicted for its entity, or started outside that entity's delay window;
- `match`: everything observed was predicted, within the timing (nothing
  observed at all is a match too: the prediction said "at most this").

This is code only; there is no input through which an LLM could write a verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from rootward.worldmodel.history import ObservedAlert
from rootward.worldmodel.predict import PredictedEntity, Prediction

Outcome = Literal["match", "partial", "deviation"]
# Slack on both ends of an entity's delay window: scrape and evaluation intervals of alerting.
TIMING_TOLERANCE_S = 60.0


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    observed: int
    unpredicted_entities: tuple[str, ...] = ()
    unpredicted_alerts: tuple[str, ...] = ()  # "entity/alertname"
    mistimed_alerts: tuple[str, ...] = ()  # "entity/alertname@+seconds"
    window_start: str = ""
    window_end: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "observed": self.observed,
            "unpredicted_entities": list(self.unpredicted_entities),
            "unpredicted_alerts": list(self.unpredicted_alerts),
            "mistimed_alerts": list(self.mistimed_alerts),
            "window": [self.window_start, self.window_end],
        }


def on_time(entity: PredictedEntity, offset_s: float) -> bool:
    """Whether an alert `offset_s` after the cause fits the entity's predicted delay window."""
    return entity.delay_min_s - TIMING_TOLERANCE_S <= offset_s <= entity.delay_p95_s + TIMING_TOLERANCE_S


def judge(prediction: Prediction, observed: Sequence[ObservedAlert], executed_at: datetime) -> Verdict:
    end = executed_at + timedelta(seconds=prediction.window_s)
    in_window = [a for a in observed if executed_at <= a.starts_at <= end]
    predicted = {e.name: e for e in prediction.entities}
    unpredicted_entities: set[str] = set()
    unpredicted_alerts: set[str] = set()
    mistimed: set[str] = set()
    for alert in in_window:
        entity = predicted.get(alert.entity)
        if entity is None:
            unpredicted_entities.add(alert.entity)
            continue
        if alert.name not in {a.name for a in entity.alerts}:
            unpredicted_alerts.add(f"{alert.entity}/{alert.name}")
        offset = (alert.starts_at - executed_at).total_seconds()
        if not on_time(entity, offset):
            mistimed.add(f"{alert.entity}/{alert.name}@+{int(offset)}")
    outcome: Outcome
    if unpredicted_entities:
        outcome = "deviation"
    elif unpredicted_alerts or mistimed:
        outcome = "partial"
    else:
        outcome = "match"
    return Verdict(
        outcome=outcome,
        observed=len(in_window),
        unpredicted_entities=tuple(sorted(unpredicted_entities)),
        unpredicted_alerts=tuple(sorted(unpredicted_alerts)),
        mistimed_alerts=tuple(sorted(mistimed)),
        window_start=executed_at.isoformat(),
        window_end=end.isoformat(),
    )
