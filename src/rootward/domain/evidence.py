"""Evidence references: the unit every claim, finding and hypothesis cites."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

EvidenceKind = Literal["log", "metric", "trace", "change", "alert", "topology", "knowledge"]


@dataclass(frozen=True)
class EvidenceRef:
    """A pointer into the data an investigation saw.

    `cite` uses the bundle spec's cite forms (`logs.jsonl:12`,
    `metrics.csv:svc/metric@start-end`, `changes.json:id`, `alerts.json:fp`,
    `topology.yaml:a->b`, `knowledge/path#chunk`) or, for live sources, the
    exact query that produced it.
    """

    kind: EvidenceKind
    cite: str
    excerpt: str = ""


def log_cite(line: int) -> str:
    return f"logs.jsonl:{line}"


def metric_cite(service: str, metric: str, start: int, end: int) -> str:
    return f"metrics.csv:{service}/{metric}@{start}-{end}"


def change_cite(change_id: str) -> str:
    return f"changes.json:{change_id}"


def alert_cite(fingerprint: str) -> str:
    return f"alerts.json:{fingerprint}"


def topology_cite(source: str, target: str) -> str:
    return f"topology.yaml:{source}->{target}"


def knowledge_cite(path: str, chunk: int) -> str:
    return f"knowledge/{path}#{chunk}"
