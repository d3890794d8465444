"""What the world model learns from: incidents whose root cause is known.

Closed investigations, bundles with truth and game-day records all reduce to
the same record: the root entity, its fault type, and the alerts that fired
(entity, name, start, end). Keeping this one small type at the boundary means
the learners never care where the history came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class ObservedAlert:
    entity: str
    name: str
    starts_at: datetime
    ends_at: datetime | None = None


@dataclass(frozen=True)
class IncidentRecord:
    root: str
    fault_type: str
    alerts: tuple[ObservedAlert, ...] = field(default_factory=tuple)
    fault_start: datetime | None = None
    source: str = ""  # bundle id, investigation id or game-day name, for the audit trail
