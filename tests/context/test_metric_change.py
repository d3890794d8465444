"""Metric change scores: one joint onset over all series, a robust before/after score per series, best per entity."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.bundle.write import write_alerts, write_incident, write_metrics, write_topology
from rootward.context.assemble import assemble_context
from rootward.context.metric_change import (
    SCALE_FLOOR_SHARE,
    change_score,
    joint_onset,
    metric_changes,
)
from rootward.domain.alert import Alert, Severity
from rootward.domain.incident import IncidentMeta
from rootward.domain.telemetry import MetricSeries
from rootward.domain.topology import Entity, Topology
from rootward.sources.bundle import bundle_sources

T0 = 1_800_000_000


def _series(service: str, metric: str, values: list[float] | np.ndarray, step: int, start: int = T0) -> MetricSeries:
    return MetricSeries(service, metric, tuple(start + i * step for i in range(len(values))), tuple(map(float, values)))


def _quiet(n: int, level: float, spread: float, seed: int) -> np.ndarray:
    return level + np.random.default_rng(seed).normal(0, spread, n)


def _system(n: int, step: int, *, moved: dict[int, tuple[int, float]], count: int = 30) -> list[MetricSeries]:
    """`count` noisy series; those in `moved` step by (shift) from sample (index) on."""
    out = []
    for i in range(count):
        values = _quiet(n, 100.0, 5.0, seed=i)
        if i in moved:
            at, shift = moved[i]
            values[at:] += shift
        out.append(_series(f"svc-{i // 3}", f"metric_{i % 3}", values, step))
    return out


def test_joint_onset_at_fine_sampling_is_found_to_the_second() -> None:
    # 40 min of 1 s samples; three series of two services step 90 s before the alert.
    n, step_at = 2400, 2100
    series = _system(n, 1, moved={4: (step_at, 60.0), 5: (step_at, 40.0), 13: (step_at, 80.0)})
    found = joint_onset(series, fired_at=T0 + step_at + 90, end=T0 + n)
    assert found is not None and found.detected and found.step == 1
    assert abs(found.onset - (T0 + step_at)) <= 3


def test_joint_onset_at_coarse_sampling_is_the_period_in_which_things_moved() -> None:
    # 5-minute periods: eight before, the change in the period before the alert, two more after;
    # the cause's series and its callers' move.
    series = _system(11, 300, moved={4: (8, 60.0), 5: (8, 40.0), 13: (8, 80.0), 20: (8, 50.0)})
    found = joint_onset(series, fired_at=T0 + 9 * 300 + 60, end=T0 + 11 * 300)
    assert found is not None and found.detected and found.step == 300
    assert found.onset == T0 + 8 * 300


def test_an_earlier_fault_that_was_over_before_the_alert_is_not_the_onset() -> None:
    n = 1200
    series = _system(n, 1, moved={4: (1000, 60.0), 5: (1000, 40.0), 13: (1000, 80.0)})
    earlier = _quiet(n, 100.0, 5.0, seed=99)
    earlier[500:700] += 300.0  # strong, but over ten minutes before the alert
    series.append(_series("svc-old", "metric_0", earlier, 1))
    found = joint_onset(series, fired_at=T0 + 1060, end=T0 + n)
    assert found is not None and found.detected
    assert abs(found.onset - (T0 + 1000)) <= 3


def test_without_a_joint_change_the_callers_default_onset_is_used_and_said_so() -> None:
    series = _system(600, 1, moved={})
    found = joint_onset(series, fired_at=T0 + 500, end=T0 + 600, fallback=T0 + 200)
    assert found is not None and not found.detected and found.onset == T0 + 200


def test_a_flat_series_that_wiggles_does_not_explode() -> None:
    onset = T0 + 30 * 60
    steady = _series("gauge", "memory_bytes", [2e8 + (i % 2) * 1.0 for i in range(30)] + [2.003e8] * 10, 60)
    change = change_score(steady, onset, T0 + 40 * 60, sustained=False)
    assert change is not None and change.score < 1.0  # +0.15% of a steady gauge is no change
    # A series flat at zero that starts reading: strong but finite, whatever the units.
    flat_zero = _series("worker", "errors_total", [0.0] * 30 + [1e-9, 2e-9, 1e-9] + [0.0] * 7, 60)
    change = change_score(flat_zero, onset, T0 + 40 * 60, sustained=False)
    assert change is not None and change.score == pytest.approx(1 / SCALE_FLOOR_SHARE)


def test_a_quiet_cause_with_a_strong_robust_change_beats_a_loud_hub() -> None:
    n, at = 60, 40
    hub = _quiet(n, 1000.0, 100.0, seed=1)
    hub[at:] += 400.0  # loud in raw numbers, a few of its own (wide) interquartile ranges
    cause = _quiet(n, 0.10, 0.005, seed=2)
    cause[at:] += 0.15  # small in raw numbers, far outside its own narrow range
    series = [_series("hub", "latency_p99_ms", hub, 60), _series("db", "cpu_usage", cause, 60)]
    _, changes = metric_changes(series, fired_at=T0 + (at + 2) * 60, end=T0 + n * 60)
    assert [c.entity for c in changes] == ["db", "hub"]
    assert changes[0].score > 3 * changes[1].score


def test_each_entity_is_ranked_by_its_best_series_and_cites_it() -> None:
    n, at = 60, 40
    cpu, mem, other = _quiet(n, 1.0, 0.05, 3), _quiet(n, 5e8, 1e6, 4), _quiet(n, 50.0, 2.0, 5)
    cpu[at:] += 2.0
    mem[at:] += 3e6
    other[at:] += 8.0
    series = [_series("api", "cpu_usage", cpu, 60), _series("api", "memory_bytes", mem, 60)]
    series.append(_series("web", "latency_p99_ms", other, 60))
    _, changes = metric_changes(series, fired_at=T0 + (at + 2) * 60, end=T0 + n * 60)
    api = changes[0]
    assert api.entity == "api" and api.metric == "cpu_usage" and api.series == 2
    assert api.evidence.kind == "metric" and api.evidence.cite.startswith("metrics.csv:api/cpu_usage@")
    assert changes[1].entity == "web"
    # The other family's best series rides along, citing itself: a reading of its own.
    [memory] = api.others
    assert memory.metric == "memory_bytes" and memory.score < api.score
    # with where it stood before and after the onset, to say by how much it moved
    assert memory.baseline == pytest.approx(5e8, rel=0.01) and memory.ratio == pytest.approx(1.006, abs=0.002)
    assert memory.evidence.cite.startswith("metrics.csv:api/memory_bytes@")
    assert changes[1].others == []


def test_a_lone_spike_of_a_spiky_series_counts_less_than_a_change_that_holds() -> None:
    onset, end = T0 + 40 * 60, T0 + 60 * 60
    base = [5.0 if i % 9 else 20.0 for i in range(40)]  # a p99 over few requests: flat, with spikes
    spiky = _series("leaf", "latency_p99_ms", base + [5.0] * 12 + [45.0] + [5.0] * 7, 60)
    held = _series("db", "cpu_usage", list(_quiet(40, 1.0, 0.05, 6)) + list(_quiet(20, 1.6, 0.05, 7)), 60)
    baro_spike, baro_held = (change_score(s, onset, end, sustained=False) for s in (spiky, held))
    spike, kept = (change_score(s, onset, end) for s in (spiky, held))
    assert baro_spike is not None and baro_held is not None and spike is not None and kept is not None
    assert baro_spike.score > baro_held.score  # BARO's max alone ranks the spike first
    assert kept.score > spike.score  # weighted by what held, the sustained change leads
    assert kept.score == pytest.approx(baro_held.score)  # every sample after stayed out


FIRED = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)


def _bundle(tmp_path: Path, step: int) -> Path:
    """A metrics-only bundle: `db` saturates two minutes before `web` alerts; `web` is its caller."""
    start = FIRED - timedelta(minutes=40)
    n = int(timedelta(minutes=50).total_seconds()) // step
    at = int(timedelta(minutes=38).total_seconds()) // step
    t0 = int(start.timestamp())
    cpu, latency, mem = _quiet(n, 0.2, 0.01, 8), _quiet(n, 120.0, 10.0, 9), _quiet(n, 3e8, 1e6, 10)
    cpu[at:] += 0.6
    latency[at:] += 30.0
    series = [
        _series("db", "cpu_usage", cpu, step, t0),
        _series("web", "latency_p99_ms", latency, step, t0),
        _series("web", "memory_bytes", mem, step, t0),
    ]
    meta = IncidentMeta("mc-1", "HighLatency on web", FIRED, start, FIRED + timedelta(minutes=10))
    alert = Alert("fp-web", "HighLatency", "web", Severity.P1, "firing", FIRED, labels={"service": "web"})
    write_incident(tmp_path, meta)
    write_alerts(tmp_path, [alert])
    write_topology(tmp_path, Topology({"web": Entity("web", depends_on=("db",)), "db": Entity("db", "database")}))
    write_metrics(tmp_path, series)
    return tmp_path


@pytest.mark.parametrize("step", [1, 300])
def test_the_context_carries_each_entitys_change_and_its_cite_resolves_in_the_bundle(tmp_path: Path, step: int) -> None:
    bundle = load_bundle(_bundle(tmp_path, step))
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    assert ctx.metric_onset is not None and ctx.metric_onset.detected
    assert abs(ctx.metric_onset.onset - int((FIRED - timedelta(minutes=2)).timestamp())) <= step
    assert [m.entity for m in ctx.metric_changes][0] == "db"
    resolver = BundleCiteResolver(bundle)
    assert all(resolver.resolves(m.evidence.cite) for m in ctx.metric_changes)
    assert {m.evidence.cite for m in ctx.metric_changes} <= {r.cite for r in ctx.evidence_refs()}
    if step == 300:  # too few samples for per-series change points: the joint onset is the incident's
        assert ctx.window.onset is not None
        assert int(ctx.window.onset.timestamp()) == ctx.metric_onset.onset
