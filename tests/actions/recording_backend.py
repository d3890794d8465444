"""Test doubles for the executor's side: a backend that records every call, a movable clock,
and the world-model records an executed action is judged against."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from rootward.store.alerts import AlertGroupRow, AlertRow
from rootward.store.ids import new_id
from rootward.worldmodel.predict import PredictedAlert, PredictedEntity, Prediction
from rootward.worldmodel.prediction_gate import ProposedAction


class RecordingBackend:
    """Accepts every verb; `calls` is what the executor asked of it, in order."""

    verbs: tuple[str, ...] = ("restart", "scale", "rollback")

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def state(self, action: ProposedAction) -> dict[str, Any]:
        self.calls.append(("state", action.target))
        return {"target": action.target}

    def dry_run(self, action: ProposedAction) -> dict[str, Any]:
        self.calls.append(("dry_run", action.target))
        return {"ok": True}

    def execute(self, action: ProposedAction) -> dict[str, Any]:
        self.calls.append(("execute", action.target))
        return {"ok": True}

    @property
    def executed(self) -> int:
        return sum(1 for kind, _ in self.calls if kind == "execute")


class Clock:
    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def restart_prediction(window_s: int = 600) -> dict[str, Any]:
    """Restarting `payment`: payment itself alerts at once, `checkout` 30-120 s later."""
    payment = PredictedEntity(
        "payment",
        "service",
        1.0,
        0.0,
        0.0,
        90.0,
        90.0,
        ("payment",),
        (PredictedAlert("payment", "PodRestarting", 1.0),),
    )
    checkout = PredictedEntity(
        "checkout",
        "service",
        0.6,
        30.0,
        60.0,
        120.0,
        90.0,
        ("payment", "checkout"),
        (PredictedAlert("checkout", "HighLatencyP99", 0.6),),
    )
    return Prediction("payment", "action:restart", (payment, checkout), window_s).to_json()


def add_alert(session: Session, service: str, name: str, starts_at: datetime) -> None:
    group = AlertGroupRow(
        id=new_id(), service=service, tier="L1", severity="P3", opened_at=starts_at, last_alert_at=starts_at
    )
    session.add(group)
    session.flush()
    session.add(
        AlertRow(
            id=new_id(),
            fingerprint=new_id(),
            group_id=group.id,
            source="generic",
            name=name,
            service=service,
            severity="P3",
            status="firing",
            tier="L1",
            labels={"service": service},
            annotations={},
            starts_at=starts_at,
            first_seen=starts_at,
            last_seen=starts_at,
        )
    )
    session.flush()
