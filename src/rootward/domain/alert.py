"""Alerts as rootward sees them, whatever webhook they arrived through."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Literal

AlertStatus = Literal["firing", "resolved"]

# Label keys that name the affected service, in the spec's order of preference.
SERVICE_LABELS: tuple[str, ...] = ("service", "job", "app", "deployment", "instance")


class Severity(StrEnum):
    """P0 pages a human at once; P3 is informational."""

    P0 = "P0"
    P1 = "P1"
    P2 = "P2"
    P3 = "P3"

    @property
    def rank(self) -> int:
        return int(self.value[1])


class Tier(StrEnum):
    """The action ladder: how far rootward may go for a group."""

    L0 = "L0"  # template notice only
    L1 = "L1"  # summary
    L2 = "L2"  # investigation plus safe actions
    L3 = "L3"  # remediation proposals behind human approval


def severity_from_label(label: str | None) -> Severity:
    """Map the `severity` label as the spec says; unknown values count as warnings."""
    value = (label or "").strip().lower()
    if value in ("p0", "page"):
        return Severity.P0
    if value in ("critical", "p1", "error", "high"):
        return Severity.P1
    if value in ("info", "p3", "low", "none"):
        return Severity.P3
    return Severity.P2


def service_of(labels: dict[str, str]) -> str:
    """The affected service: label `service`, then `job`, `app`, `deployment`, `instance`."""
    for key in SERVICE_LABELS:
        value = labels.get(key)
        if value:
            if key == "instance":
                return value.split(":", 1)[0]
            return value
    return "unknown"


@dataclass(frozen=True)
class Alert:
    fingerprint: str
    name: str
    service: str
    severity: Severity
    status: AlertStatus
    starts_at: datetime
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    ends_at: datetime | None = None
    generator_url: str = ""
