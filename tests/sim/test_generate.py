"""Generated bundles: deterministic, valid under the spec, and not trivially solvable."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from rootward.bundle.load import load_bundle
from rootward.domain.faults import FAULT_TYPES
from rootward.sim.generate import GOLDEN_PER_FAULT, bundle_files, generate, plan_bundles
from rootward.sim.scenario import Sampling, build_scenario
from rootward.sim.topologies import BUILT_IN, load_topology
from rootward.sim.traces import MAX_SPANS


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_writes_byte_identical_bundles(tmp_path: Path) -> None:
    generate(tmp_path / "a", count=3, seed=42)
    generate(tmp_path / "b", count=3, seed=42)
    a, b = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert a.keys() == b.keys() and len(a) > 20
    assert [k for k in a if a[k] != b[k]] == []


def test_different_seeds_give_different_incidents() -> None:
    _, files_a, _ = bundle_files(BUILT_IN["shop"], "memory_leak", 1, 0)
    _, files_b, _ = bundle_files(BUILT_IN["shop"], "memory_leak", 2, 0)
    assert files_a["alerts.json"] != files_b["alerts.json"] and files_a != files_b


def test_a_larger_span_budget_keeps_more_whole_traces(tmp_path: Path) -> None:
    (small,) = generate(tmp_path / "a", count=1, seed=5, topologies=["shop"], faults=["network_latency"])
    (large,) = generate(
        tmp_path / "b", count=1, seed=5, topologies=["shop"], faults=["network_latency"], max_spans=12_000
    )
    n_small = len(load_bundle(small.path).spans or ())
    n_large = len(load_bundle(large.path).spans or ())
    assert n_small <= MAX_SPANS < n_large <= 12_000
    others = sorted(p.name for p in small.path.iterdir() if p.is_file() and p.name != "traces.jsonl")
    assert others == sorted(p.name for p in large.path.iterdir() if p.is_file() and p.name != "traces.jsonl")
    for name in others:  # only the traces differ
        assert (small.path / name).read_bytes() == (large.path / name).read_bytes(), name


def test_generated_bundles_load_and_follow_the_spec(tmp_path: Path) -> None:
    for g in generate(tmp_path, count=4, seed=3):
        bundle = load_bundle(g.path)
        assert bundle.id == g.path.name
        assert all(a.fingerprint and len(a.fingerprint) == 16 for a in bundle.alerts)
        assert bundle.meta.window_start <= bundle.meta.fired_at <= bundle.meta.window_end
        for series in bundle.metrics or []:
            steps = {b - a for a, b in zip(series.timestamps, series.timestamps[1:], strict=False)}
            assert steps <= {30, 60}
        truth = json.loads((g.path / "truth.json").read_text())
        assert truth["root_cause"]["fault_type"] in FAULT_TYPES
        assert truth["root_cause"]["entity"] in (bundle.topology.entities if bundle.topology else {})
        for item in truth["also_acceptable"]:
            assert item["fault_type"] in FAULT_TYPES


def test_golden_plan_covers_every_fault_in_every_topology() -> None:
    plan = plan_bundles(GOLDEN_PER_FAULT * len(FAULT_TYPES), list(BUILT_IN.values()), list(FAULT_TYPES))
    per_fault = Counter(f for _, f in plan)
    assert min(per_fault.values()) >= 4 and set(per_fault) == set(FAULT_TYPES)
    for fault in FAULT_TYPES:
        assert {t.name for t, f in plan if f == fault} == set(BUILT_IN)


def test_golden_set_is_not_solved_by_the_first_alert_or_the_last_change() -> None:
    plan = plan_bundles(GOLDEN_PER_FAULT * len(FAULT_TYPES), list(BUILT_IN.values()), list(FAULT_TYPES))
    first_alert = last_change = infra = 0
    for i, (topo, fault) in enumerate(plan):
        sc = build_scenario(topo, fault, random.Random(f"t/{i}"), f"b-{i}")
        first_alert += sc.alerts[0].entity == sc.cause.name
        before = [c for c in sc.changes if int(c["time"]) <= sc.fired_at]
        if before:
            last_change += max(before, key=lambda c: int(c["time"]))["service"] == sc.cause.name
        infra += sc.cause.family in ("host", "network", "storage")
    n = len(plan)
    assert first_alert / n < 0.45
    assert last_change / n < 0.3
    assert infra / n > 0.1


def test_user_topology_yaml_is_accepted(tmp_path: Path) -> None:
    spec = tmp_path / "mini.yaml"
    spec.write_text(
        "entities:\n"
        "  web: {kind: service, depends_on: [api], runs_on: box}\n"
        "  api: {kind: service, depends_on: [db], runs_on: box}\n"
        "  db: {kind: database, runs_on: box}\n"
        "  box: {kind: host}\n"
    )
    topo = load_topology(str(spec))
    assert topo.name == "mini" and topo.get("db").software == "postgres"
    written = generate(tmp_path / "out", count=3, seed=1, topologies=[str(spec)], faults=["db_lock_contention"])
    for g in written:
        assert load_bundle(g.path).topology is not None
        assert json.loads((g.path / "truth.json").read_text())["root_cause"]["entity"] == "db"


def test_default_faults_skip_what_a_topology_cannot_host(tmp_path: Path) -> None:
    spec = tmp_path / "tiny.yaml"
    spec.write_text("entities:\n  web: {kind: service, depends_on: [db]}\n  db: {kind: database}\n")
    written = generate(tmp_path / "out", count=4, seed=1, topologies=[str(spec)])
    assert {g.fault_type for g in written} <= set(FAULT_TYPES) - {"dns_failure", "packet_loss"}
    with pytest.raises(ValueError, match="dns_failure"):
        generate(tmp_path / "bad", count=1, seed=1, topologies=[str(spec)], faults=["dns_failure"])


def test_unknown_fault_type_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown fault type"):
        generate(tmp_path, count=1, seed=1, faults=["gremlins"])


def test_bytes_do_not_depend_on_the_process_hash_seed(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; from rootward.sim.generate import generate; "
        "generate(Path(sys.argv[1]), 3, 9)"
    )
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-c", code, str(tmp_path / hash_seed)], check=True, env=env)
    a, b = _tree(tmp_path / "1"), _tree(tmp_path / "2")
    assert a == b and a


def test_a_sampling_override_changes_the_metric_step_and_lead_not_the_incident() -> None:
    drawn = build_scenario(BUILT_IN["shop"], "disk_full", random.Random("s"), "b")
    fine = build_scenario(BUILT_IN["shop"], "disk_full", random.Random("s"), "b", sampling=Sampling(1, 900))
    assert (fine.cause.name, fine.onset, fine.window_end) == (drawn.cause.name, drawn.onset, drawn.window_end)
    assert fine.resolution == 1 and drawn.resolution in (30, 60)
    assert fine.window_start == drawn.onset - 900 and drawn.window_start <= drawn.onset - 45 * 60
    _, files, _ = bundle_files(BUILT_IN["shop"], "disk_full", 3, 0, sampling=Sampling(step_s=1))
    stamps = sorted({int(line.split(b",")[0]) for line in files["metrics.csv"].splitlines()[1:]})
    assert {b - a for a, b in zip(stamps, stamps[1:], strict=False)} == {1}
