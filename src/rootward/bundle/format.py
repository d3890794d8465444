"""What a bundle is: its file names, its errors, and the loaded `Bundle` record.

Kept apart from the parsers and writers so that a module that only needs to
name a bundle (the evidence view, the cite resolver) does not pull in YAML
and CSV handling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rootward.domain.alert import Alert
from rootward.domain.incident import IncidentMeta
from rootward.domain.knowledge import Document
from rootward.domain.telemetry import Change, LogRecord, MetricSeries, Span
from rootward.domain.topology import Topology

FORMAT = "rootward-bundle/v1"
INCIDENT_FILE = "incident.yaml"
ALERTS_FILE = "alerts.json"
TOPOLOGY_FILE = "topology.yaml"
LOGS_FILE = "logs.jsonl"
METRICS_FILE = "metrics.csv"
TRACES_FILE = "traces.jsonl"
CHANGES_FILE = "changes.json"
KNOWLEDGE_DIR = "knowledge"
GAPS_FILE = "gaps.json"
TRUTH_FILE = "truth.json"
REQUIRED_FILES = (INCIDENT_FILE, ALERTS_FILE)
OPTIONAL_FILES = (TOPOLOGY_FILE, LOGS_FILE, METRICS_FILE, TRACES_FILE, CHANGES_FILE, KNOWLEDGE_DIR)
CHANGE_KINDS = ("deploy", "config", "infra", "feature_flag")
SPAN_STATUSES = ("ok", "error")
SPAN_KINDS = ("server", "client", "producer", "consumer", "internal")
METRICS_HEADER = ("timestamp", "service", "metric", "value")
ID_PATTERN = re.compile(r"^[a-z0-9._-]+$")


class BundleError(ValueError):
    """A bundle that breaks the spec; the message names file, line and field."""


class TruthAccessDenied(PermissionError):
    """Raised when anything but the evaluator tries to read truth.json."""


@dataclass
class Bundle:
    """A loaded bundle. Optional parts are None when their file is absent."""

    root: Path
    meta: IncidentMeta
    alert_payloads: list[dict[str, Any]]
    alerts: list[Alert]
    topology: Topology | None = None
    logs: list[LogRecord] | None = None
    metrics: list[MetricSeries] | None = None
    spans: tuple[Span, ...] | None = None  # traces.jsonl, in file order
    changes: list[Change] | None = None
    documents: list[Document] | None = None
    missing: list[str] = field(default_factory=list)
    gap_reasons: dict[str, str] = field(default_factory=dict)  # from gaps.json of a live snapshot
    _tmp: Any = field(default=None, repr=False)

    @property
    def id(self) -> str:
        return self.meta.id

    def gaps(self) -> list[str]:
        return [f"{name}: {self.gap_reasons.get(name, 'source missing from bundle')}" for name in self.missing]

    def partial_gaps(self) -> list[str]:
        """What a live snapshot noted beyond missing files, verbatim: an alerting entity without metrics
        (`metrics.csv:<entity>`), a combined source whose parts partly failed (the file's own name)."""
        notes = sorted((key.endswith(":*"), key) for key in self.gap_reasons if key not in self.missing)
        return [self.gap_reasons[key] for _, key in notes]
