"""A blast-radius prediction as the world model computes it and a proposal carries it.

Pure data (the walk that computes it lives in `worldmodel/predict.py`): a
proposal, the approval it leads to and the verdict after execution all read
this one record, and its JSON (`to_json`) is the spec's `prediction` object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MODEL_VERSION = "worldmodel/v1"


@dataclass(frozen=True)
class PredictedAlert:
    entity: str
    name: str
    probability: float

    def to_json(self) -> dict[str, Any]:
        return {"entity": self.entity, "name": self.name, "probability": round(self.probability, 4)}


@dataclass(frozen=True)
class PredictedEntity:
    name: str
    kind: str
    probability: float
    delay_min_s: float
    delay_p50_s: float
    delay_p95_s: float
    recovery_s: float
    path: tuple[str, ...]  # target first, this entity last
    alerts: tuple[PredictedAlert, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "probability": round(self.probability, 4),
            "delay_s": [round(self.delay_min_s, 1), round(self.delay_p50_s, 1), round(self.delay_p95_s, 1)],
            "recovery_s": round(self.recovery_s, 1),
            "path": list(self.path),
        }


@dataclass(frozen=True)
class Prediction:
    target: str
    cause: str  # "action:<verb>" or "fault:<fault_type>"
    entities: tuple[PredictedEntity, ...]
    window_s: int
    model: str = MODEL_VERSION
    notes: tuple[str, ...] = field(default_factory=tuple)

    def entity(self, name: str) -> PredictedEntity | None:
        for item in self.entities:
            if item.name == name:
                return item
        return None

    @property
    def alerts(self) -> tuple[PredictedAlert, ...]:
        return tuple(a for e in self.entities for a in e.alerts)

    def to_json(self) -> dict[str, Any]:
        """The spec's `prediction` object: entities, alerts, window_s (plus what explains them)."""
        return {
            "target": self.target,
            "cause": self.cause,
            "model": self.model,
            "window_s": self.window_s,
            "entities": [e.to_json() for e in self.entities],
            "alerts": [
                {**a.to_json(), "window_s": [round(e.delay_min_s, 1), round(e.delay_p95_s, 1)]}
                for e in self.entities
                for a in e.alerts
            ],
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Prediction:
        by_entity: dict[str, list[PredictedAlert]] = {}
        for a in data.get("alerts", []):
            by_entity.setdefault(a["entity"], []).append(
                PredictedAlert(a["entity"], a["name"], float(a["probability"]))
            )
        entities = []
        for e in data.get("entities", []):
            lo, mid, hi = (float(x) for x in e["delay_s"])
            entities.append(
                PredictedEntity(
                    name=e["name"],
                    kind=e.get("kind", "unknown"),
                    probability=float(e["probability"]),
                    delay_min_s=lo,
                    delay_p50_s=mid,
                    delay_p95_s=hi,
                    recovery_s=float(e.get("recovery_s", 0.0)),
                    path=tuple(e.get("path", ())),
                    alerts=tuple(by_entity.get(e["name"], ())),
                )
            )
        return cls(
            target=data["target"],
            cause=data["cause"],
            entities=tuple(entities),
            window_s=int(data["window_s"]),
            model=data.get("model", MODEL_VERSION),
            notes=tuple(data.get("notes", ())),
        )
