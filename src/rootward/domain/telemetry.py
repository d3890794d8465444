"""Raw observability records as the sources hand them over."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

ChangeKind = Literal["deploy", "config", "infra", "feature_flag"]


@dataclass(frozen=True)
class LogRecord:
    ts: datetime
    service: str
    message: str
    level: str = ""
    host: str = ""
    pod: str = ""
    line: int = 0  # 1-based line in logs.jsonl for bundles; 0 for live sources
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MetricSeries:
    """One (service, metric) series; timestamps are epoch seconds, ascending."""

    service: str
    metric: str
    timestamps: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True)
class Change:
    id: str
    kind: ChangeKind
    service: str
    time: datetime
    version: str = ""
    author: str = ""
    summary: str = ""
    diff: str = ""
