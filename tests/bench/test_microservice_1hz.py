"""The 1-second microservice check set: valid bundles, a cause on the map, same bytes per seed, a visible fault."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from bench.microservice_1hz import BEFORE_S, KINDS, NAMES, STEPS, write_bundle

from rootward.bundle.load import load_bundle


def _series(root: Path) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    """Per (service, metric): the values before the injection and after it."""
    bundle = load_bundle(root)
    onset = int(bundle.meta.window_start.timestamp()) + BEFORE_S
    out = {}
    for s in bundle.metrics or ():
        before = [v for t, v in zip(s.timestamps, s.values, strict=True) if t < onset]
        after = [v for t, v in zip(s.timestamps, s.values, strict=True) if t >= onset]
        out[(s.service, s.metric)] = (before, after)
    return out


def test_bundles_load_and_name_a_service_on_their_map(tmp_path: Path) -> None:
    for index, kind in enumerate(KINDS):
        bundle = load_bundle(write_bundle(tmp_path, 3, index, kind))
        truth = json.loads((bundle.root / "truth.json").read_text())
        assert truth["root_cause"]["fault_type"] == KINDS[kind][0]
        assert bundle.topology is not None and truth["root_cause"]["entity"] in bundle.topology.entities
        assert bundle.topology.entities[truth["root_cause"]["entity"]].kind == "service"
        assert bundle.metrics and {s.service for s in bundle.metrics} == set(bundle.topology.entities)
        assert len(bundle.alerts) == 1 and bundle.meta.window_start < bundle.meta.fired_at < bundle.meta.window_end
        backends = {n for n, e in bundle.topology.entities.items() if e.kind != "service"}
        assert backends and not {s.service for s in bundle.metrics if s.metric.startswith("latency")} & backends


def test_the_same_seed_writes_the_same_bytes_and_raw_names_only_rename(tmp_path: Path) -> None:
    one = write_bundle(tmp_path / "a", 5, 7, "loss")
    two = write_bundle(tmp_path / "b", 5, 7, "loss")
    raw = write_bundle(tmp_path / "c", 5, 7, "loss", names="raw", topology=False)
    for name in ("metrics.csv", "alerts.json", "incident.yaml", "topology.yaml", "truth.json"):
        assert (one / name).read_bytes() == (two / name).read_bytes()
    assert not (raw / "topology.yaml").exists()
    renamed = (one / "metrics.csv").read_text()
    for canonical, theirs in zip(NAMES["canonical"], NAMES["raw"], strict=True):
        renamed = renamed.replace(f",{canonical},", f",{theirs},")
    assert renamed == (raw / "metrics.csv").read_text()
    assert write_bundle(tmp_path / "d", 6, 7, "loss").joinpath("metrics.csv").read_bytes() != renamed.encode()


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_faulty_series_changes_after_the_injection(tmp_path: Path, kind: str) -> None:
    root = write_bundle(tmp_path, 9, 1, kind)
    entity = json.loads((root / "truth.json").read_text())["root_cause"]["entity"]
    series = _series(root)

    def median(metric: str, part: int) -> float:
        return statistics.median(series[(entity, metric)][part])

    def rise(metric: str) -> float:
        before, after = series[(entity, metric)]
        return statistics.mean(after) / statistics.mean(before)

    if kind == "cpu":
        assert median("cpu_usage", 1) > median("cpu_usage", 0) + 0.3
        assert rise("latency_p50_ms") > 1.02  # its own work slows; what it waits for does not
    elif kind == "mem":
        assert series[(entity, "memory_bytes")][1][-1] > median("memory_bytes", 0) + 150 * 2**20
        assert rise("latency_p50_ms") < 1.15
    elif kind == "disk":
        assert median("cpu_usage", 1) > median("cpu_usage", 0) + 0.03
        assert rise("latency_p50_ms") > 1.01
    elif kind == "delay":
        assert median("latency_p50_ms", 1) > median("latency_p50_ms", 0) + 40
        assert rise("cpu_usage") < 1.05  # a delayed pod does no more work
    else:
        p90 = series[(entity, "latency_p90_ms")]
        assert statistics.mean(p90[1]) > statistics.mean(p90[0]) + 50  # retransmission timeouts in the tail
        assert median("latency_p90_ms", 1) - median("latency_p90_ms", 0) > median("latency_p50_ms", 1) - median(
            "latency_p50_ms", 0
        )
        assert rise("cpu_usage") < 1.05


@pytest.mark.parametrize(("seed", "index"), [(3, 11), (5, 7)])  # both draw a backend for the delay
def test_hard_a_delayed_backend_shows_only_in_its_callers_latency(tmp_path: Path, seed: int, index: int) -> None:
    root = write_bundle(tmp_path, seed, index, "delay", hard=True)
    truth = json.loads((root / "truth.json").read_text())
    entity, size = truth["root_cause"]["entity"], float(truth["notes"].split("size ")[1].split(",")[0])
    assert "hard: backend target" in truth["notes"]
    topology = load_bundle(root).topology
    assert topology is not None and topology.entities[entity].kind != "service"
    series = _series(root)
    assert {m for s, m in series if s == entity} == {"cpu_usage", "memory_bytes"}  # not behind the mesh
    cpu, mem = series[(entity, "cpu_usage")], series[(entity, "memory_bytes")]
    assert statistics.mean(cpu[1]) / statistics.mean(cpu[0]) < 1.05  # waiting on the wire costs it no work
    assert abs(statistics.median(mem[1]) / statistics.median(mem[0]) - 1) < 0.05
    callers = [name for name, e in topology.entities.items() if entity in e.depends_on]
    assert callers
    for caller in callers:
        before, after = series[(caller, "latency_p50_ms")]
        assert statistics.median(after) > statistics.median(before) + 0.2 * size


@pytest.mark.parametrize(("seed", "index"), [(3, 11), (5, 11)])  # both draw a backend for the CPU hog
def test_hard_a_cpu_hog_in_a_backend_shows_in_its_cpu_and_its_callers_latency(
    tmp_path: Path, seed: int, index: int
) -> None:
    root = write_bundle(tmp_path, seed, index, "cpu", hard=True)
    entity = json.loads((root / "truth.json").read_text())["root_cause"]["entity"]
    topology = load_bundle(root).topology
    assert topology is not None and topology.entities[entity].kind != "service"
    series = _series(root)
    cpu = series[(entity, "cpu_usage")]
    assert statistics.median(cpu[1]) > statistics.median(cpu[0]) + 0.3
    for caller in [name for name, e in topology.entities.items() if entity in e.depends_on]:
        before, after = series[(caller, "latency_p50_ms")]
        assert statistics.median(after) > 1.05 * statistics.median(before)


def test_hard_loses_seconds_and_whole_pods_in_scrape_gaps(tmp_path: Path) -> None:
    bundle = load_bundle(write_bundle(tmp_path, 3, 11, "cpu", hard=True))
    start = int(bundle.meta.window_start.timestamp())
    seen: dict[str, list[set[int]]] = {}
    for s in bundle.metrics or ():
        seen.setdefault(s.service, []).append({int(t) - start for t in s.timestamps})
    cpu_seen = [s.values for s in bundle.metrics or () if s.metric == "cpu_usage"]
    lost = 1 - sum(map(len, cpu_seen)) / (len(cpu_seen) * STEPS)  # a CPU sample is never otherwise missing
    assert 0.005 < lost < 0.1

    def longest_gap(steps: set[int]) -> int:
        run = best = 0
        for i in range(STEPS):
            run = 0 if i in steps else run + 1
            best = max(best, run)
        return best

    gaps = {pod: longest_gap(set.union(*steps)) for pod, steps in seen.items()}  # missing from all its series
    assert max(gaps.values()) >= 10


def test_hard_the_same_seed_writes_the_same_bytes(tmp_path: Path) -> None:
    one = write_bundle(tmp_path / "a", 4, 2, "disk", hard=True)
    two = write_bundle(tmp_path / "b", 4, 2, "disk", hard=True)
    easy = write_bundle(tmp_path / "c", 4, 2, "disk")
    for name in ("metrics.csv", "alerts.json", "incident.yaml", "topology.yaml", "truth.json"):
        assert (one / name).read_bytes() == (two / name).read_bytes()
    assert (one / "metrics.csv").read_bytes() != (easy / "metrics.csv").read_bytes()
