"""Specialist agents: each tests hypotheses from its own narrow slice of the evidence."""

from __future__ import annotations

from rootward.engine.specialists.base import Specialist
from rootward.engine.specialists.changes import ChangesSpecialist
from rootward.engine.specialists.logs import LogsSpecialist
from rootward.engine.specialists.metrics import MetricsSpecialist
from rootward.engine.specialists.runbooks import RunbooksSpecialist
from rootward.engine.specialists.topology import TopologySpecialist
from rootward.engine.specialists.traces import TracesSpecialist


def default_specialists() -> list[Specialist]:
    return [
        MetricsSpecialist(),
        LogsSpecialist(),
        TracesSpecialist(),
        ChangesSpecialist(),
        TopologySpecialist(),
        RunbooksSpecialist(),
    ]


__all__ = ["Specialist", "default_specialists"]
