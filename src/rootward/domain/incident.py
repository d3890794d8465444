"""Incident metadata shared by bundles and live alert groups."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class IncidentMeta:
    id: str
    title: str
    fired_at: datetime
    window_start: datetime
    window_end: datetime
