"""What the world model learns from: incidents whose root cause is known.

Closed investigations, bundles with truth and game-day records all reduce to
the same record: the root entity, its fault type, the alerts that fired
(entity, name, start, end), and, where telemetry was kept, the symptoms each
entity showed before or without alerting (the first sustained move of one of
its metrics, or of the error share or latency of the calls into it). Keeping
this one small type at the boundary means the learners never care where the
history came from.

Symptoms matter because alerts are a sparse, late view of a cascade: an
intermediate service that slowed down without a rule of its own was still on
the cascade's path, and its own symptom says when the cascade reached it,
before the alert rule's `for:` clause added its minutes.
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
class ObservedSymptom:
    """The first sustained sign of trouble on an entity: when, in which signal, from which telemetry."""

    entity: str
    starts_at: datetime
    signal: str = ""  # e.g. the metric name, or "calls:errors"
    source: str = "metrics"  # metrics | traces


@dataclass(frozen=True)
class IncidentRecord:
    root: str
    fault_type: str
    alerts: tuple[ObservedAlert, ...] = field(default_factory=tuple)
    fault_start: datetime | None = None
    source: str = ""  # bundle id, investigation id or game-day name, for the audit trail
    symptoms: tuple[ObservedSymptom, ...] = field(default_factory=tuple)
    # Entities whose telemetry the record holds: without a symptom, they were seen to be fine.
    watched: frozenset[str] = frozenset()
