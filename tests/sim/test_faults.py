"""Each fault leaves its signature on the cause entity, and not elsewhere."""

from __future__ import annotations

import json
import re
import statistics
from datetime import datetime
from pathlib import Path

import pytest

from rootward.bundle.load import load_bundle
from rootward.domain.faults import FAULT_TYPES
from rootward.sim.faults import SIGNATURES
from rootward.sim.generate import generate

ABSOLUTE = {"error_rate", "disk_used_ratio", "packet_loss_ratio", "restarts_total", "lock_waits"}


def _epoch(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp())


def metric_shift(
    timestamps: tuple[int, ...], values: tuple[float, ...], pre_end: int, onset: int, metric: str
) -> float:
    """How far a series moved after onset compared with the start of the window."""
    pre = [v for t, v in zip(timestamps, values, strict=True) if t < pre_end]
    post = [v for t, v in zip(timestamps, values, strict=True) if onset <= t <= onset + 900]
    if not pre or not post:
        return 0.0
    base = statistics.fmean(pre)
    moved = max(abs(statistics.fmean(post) - base), abs(max(post) - base))
    return moved if metric in ABSOLUTE else moved / (abs(base) + 1e-9)


def signature_violations(bundle_dir: Path) -> list[str]:
    """What is wrong with a bundle's fault signature (empty when a senior SRE could find the cause)."""
    truth = json.loads((bundle_dir / "truth.json").read_text())
    cause, fault = truth["root_cause"]["entity"], truth["root_cause"]["fault_type"]
    onset = _epoch(truth["fault_onset"])
    bundle = load_bundle(bundle_dir)
    metrics, pattern = SIGNATURES[fault]
    problems: list[str] = []
    if bundle.metrics is not None and metrics:
        pre_end = int(bundle.meta.window_start.timestamp()) + 300
        misses = []
        for metric in metrics:
            shifts = {
                s.service: metric_shift(s.timestamps, s.values, pre_end, onset, metric)
                for s in bundle.metrics
                if s.metric == metric
            }
            top = max(shifts, key=lambda k: shifts[k]) if shifts else None
            if top == cause or cause not in shifts:
                break
            misses.append(f"{metric} moved most on {top} ({shifts[top]:.3g}), not on {cause} ({shifts[cause]:.3g})")
        else:
            problems += misses
    if bundle.metrics is not None and fault == "connection_pool_exhaustion":
        # Saturation is in_use == max: only the cause's client pool may be full.
        series = {(s.service, s.metric): s for s in bundle.metrics}
        full = sorted(
            svc
            for (svc, metric), s in series.items()
            if metric == "db_connections_in_use"
            and (svc, "db_connections_max") in series
            and any(u >= m > 0 for u, m in zip(s.values, series[(svc, "db_connections_max")].values, strict=False))
        )
        if full != [cause]:
            problems.append(f"client pools at their maximum: {full}, expected only {cause}")
    if bundle.metrics is not None and fault == "dependency_down" and any(s.service == cause for s in bundle.metrics):
        last = max(s.timestamps[-1] for s in bundle.metrics if s.service == cause)
        if last > onset + 60:
            problems.append(f"{cause} metrics continue after it went down")
    if bundle.logs is not None:
        rx = re.compile(pattern)
        own = [r for r in bundle.logs if r.ts.timestamp() >= onset - 3600 and rx.search(r.message)]
        about = [r for r in own if r.service == cause or cause in r.message]
        if not about:
            problems.append(f"no log line matching {pattern!r} from or about {cause}")
    return problems


@pytest.fixture(scope="module")
def one_per_fault(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("faults")
    return [g.path for g in generate(out, count=len(FAULT_TYPES), seed=11)]


def test_every_fault_type_is_generated(one_per_fault: list[Path]) -> None:
    faults = {json.loads((p / "truth.json").read_text())["root_cause"]["fault_type"] for p in one_per_fault}
    assert faults == set(FAULT_TYPES)


@pytest.mark.parametrize("index", range(len(FAULT_TYPES)))
def test_fault_signature_sits_on_the_cause_entity(one_per_fault: list[Path], index: int) -> None:
    assert signature_violations(one_per_fault[index]) == []
