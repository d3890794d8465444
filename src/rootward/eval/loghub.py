"""Grouping accuracy of the log clusterer on labelled LogHub samples.

Grouping accuracy (GA, from the logparser benchmark) is the share of lines
whose predicted cluster holds exactly the same set of lines as their true
event. Every system is clustered with the same `ClusterConfig`, because the
clusterer meets systems it has never seen in production.
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rootward.context.logs import ClusterConfig, assign_templates

# Published Drain GA (logparser benchmark, per-system tuned settings).
PUBLISHED_DRAIN_GA: dict[str, float] = {
    "HDFS": 0.998,
    "Hadoop": 0.948,
    "Spark": 0.920,
    "Zookeeper": 0.967,
    "BGL": 0.963,
    "OpenSSH": 0.788,
    "Apache": 1.000,
    "Linux": 0.690,
}


@dataclass(frozen=True)
class SystemAccuracy:
    system: str
    lines: int
    events: int
    clusters: int
    grouping_accuracy: float
    published: float | None


def grouping_accuracy(truth: Sequence[str], predicted: Sequence[object]) -> float:
    """Share of lines whose predicted group equals their true group exactly."""
    if len(truth) != len(predicted):
        raise ValueError("truth and predicted must have the same length")
    if not truth:
        return 1.0
    pair_counts = Counter(zip(truth, predicted, strict=True))
    truth_sizes = Counter(truth)
    predicted_sizes = Counter(predicted)
    correct = 0
    for (event, cluster), n in pair_counts.items():
        if truth_sizes[event] == n and predicted_sizes[cluster] == n:
            correct += n
    return correct / len(truth)


def load_structured(path: Path) -> tuple[list[str], list[str]]:
    """Read `Content` and `EventId` columns of a `*_structured*.csv` file."""
    contents: list[str] = []
    events: list[str] = []
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            contents.append(row["Content"])
            events.append(row["EventId"])
    return contents, events


def find_systems(root: Path) -> dict[str, Path]:
    """Map system name to its structured CSV under `root` (one folder per system)."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*_structured*.csv")):
        system = path.name.split("_", 1)[0]
        if system not in found or "corrected" in path.name:
            found[system] = path
    return found


def evaluate_system(system: str, path: Path, config: ClusterConfig | None = None) -> SystemAccuracy:
    contents, events = load_structured(path)
    assignment, templates = assign_templates(contents, config)
    return SystemAccuracy(
        system=system,
        lines=len(contents),
        events=len(set(events)),
        clusters=len(set(assignment)),
        grouping_accuracy=grouping_accuracy(events, assignment),
        published=PUBLISHED_DRAIN_GA.get(system),
    )


def evaluate_dir(root: Path, config: ClusterConfig | None = None) -> list[SystemAccuracy]:
    return [evaluate_system(s, p, config) for s, p in find_systems(root).items()]
