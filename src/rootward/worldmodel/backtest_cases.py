"""Backtest cases from incident bundles: the truth, the alerts, and the telemetry's first signs.

Kept apart from the backtest itself so the scoring never touches files: the
caller hands in the truth reader (`rootward.eval.truth.read_truth`) and the
bundle loader (`rootward.bundle.load.load_bundle`), and the world model imports
neither layer. Each case's learning record carries the symptoms found in the
bundle's metrics and traces (`symptoms.py`) and which entities the bundle has
telemetry of, so the learners can tell "silent but on the path" from "watched
and fine".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rootward.worldmodel.backtest import BacktestCase
from rootward.worldmodel.history import ObservedAlert, ObservedSymptom
from rootward.worldmodel.symptoms import earliest, metric_symptoms, trace_symptoms

TruthReader = Callable[[Path], Any]


def onset_of(truth: Any) -> datetime | None:
    """The truth record's `fault_onset`, if it has a readable one."""
    raw = truth.get("fault_onset") if isinstance(truth, dict) else getattr(truth, "extra", {}).get("fault_onset")
    if not isinstance(raw, str):
        return None
    try:
        parsed = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def topology_name_of(truth: Any) -> str:
    """The truth record's `topology` label (which estate the incident happened on), or ""."""
    raw = truth.get("topology") if isinstance(truth, dict) else getattr(truth, "topology", "")
    return str(raw or "")


def root_of(truth: Any) -> tuple[str, str]:
    """(entity, fault_type) of a truth record: `eval.truth.Truth`, or the raw truth.json dict."""
    if isinstance(truth, dict):
        root = truth["root_cause"]
        return str(root["entity"]), str(root["fault_type"])
    return str(truth.entity), str(truth.fault_type)


def load_cases(
    bundle_dirs: Sequence[Path], read_truth: TruthReader, load_bundle: Callable[[Path], Any]
) -> tuple[list[BacktestCase], list[str]]:
    """Bundles with truth and a topology become cases; the others are named as skipped.

    The caller hands in the truth reader (`rootward.eval.truth.read_truth`) and the bundle
    loader (`rootward.bundle.load.load_bundle`): the world model imports neither layer.
    """
    cases: list[BacktestCase] = []
    skipped: list[str] = []
    for path in bundle_dirs:
        try:
            truth = read_truth(path)
        except FileNotFoundError:
            skipped.append(f"{path.name}: no truth")
            continue
        bundle = load_bundle(path)
        if bundle.topology is None:
            skipped.append(f"{path.name}: no topology")
            continue
        entity, fault_type = root_of(truth)
        onset = onset_of(truth)
        alerts = tuple(ObservedAlert(a.service, a.name, a.starts_at, a.ends_at) for a in bundle.alerts)
        cases.append(
            BacktestCase(
                name=bundle.id,
                topology=bundle.topology,
                root=entity,
                fault_type=fault_type,
                alerted=frozenset(a.entity for a in alerts if onset is None or a.starts_at >= onset),
                alerts=alerts,
                onset=onset,
                symptoms=bundle_symptoms(bundle, onset, alerts),
                watched=watched_entities(bundle),
                topology_name=topology_name_of(truth),
            )
        )
    return cases, skipped


SYMPTOM_LOOKBACK = timedelta(minutes=10)


def bundle_symptoms(
    bundle: Any, onset: datetime | None, alerts: Sequence[ObservedAlert]
) -> tuple[ObservedSymptom, ...]:
    """First signs per entity in the bundle's metrics and traces, from the onset (or a while before the first alert)."""
    since = onset or (min(a.starts_at for a in alerts) - SYMPTOM_LOOKBACK if alerts else None)
    if since is None:
        return ()
    return earliest(metric_symptoms(bundle.metrics or (), since), trace_symptoms(bundle.spans or (), since))


def watched_entities(bundle: Any) -> frozenset[str]:
    """Entities with telemetry in the bundle: a metric series, or spans of their own."""
    return frozenset(s.service for s in bundle.metrics or ()) | frozenset(s.service for s in bundle.spans or ())


def bundle_dirs_under(root: Path) -> list[Path]:
    if (root / "incident.yaml").is_file():
        return [root]
    return sorted(p.parent for p in root.glob("*/incident.yaml"))
