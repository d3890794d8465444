"""The managed-cloud check set: valid bundles, a cause on the map, CloudWatch's missing zero periods."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from bench.managed_cloud import Fault, Noise, call_graph, reached, simulate, write_bundle

from rootward.bundle.load import load_bundle


def test_bundles_load_and_name_a_cause_on_their_map(tmp_path: Path) -> None:
    rng = random.Random(3)
    holes = 0
    for index in range(6):
        bundle = load_bundle(write_bundle(tmp_path, index, rng))
        truth = json.loads((tmp_path / f"cloud-{index:03d}" / "truth.json").read_text())
        assert bundle.topology is not None and truth["root_cause"]["entity"] in bundle.topology.entities
        assert bundle.metrics and {s.service for s in bundle.metrics} <= set(bundle.topology.entities)
        steps = {s.service: len(s.timestamps) for s in bundle.metrics if s.metric in ("latency", "Duration")}
        counts = [s for s in bundle.metrics if s.metric in ("Errors", "SystemErrors", "HTTPCode_Target_5XX_Count")]
        holes += sum(len(s.timestamps) < max(steps.values(), default=0) for s in counts)
    assert holes  # some periods counted no error and have no data point, as CloudWatch reports them


def test_a_surge_raises_the_requests_where_it_arrives_and_below_not_above() -> None:
    rng = random.Random(5)
    nodes = call_graph(rng)
    root = next(c for c in nodes if c.callees and any(c.name in m.callees for m in nodes))
    onset = 30
    samples = simulate(rng, nodes, 40, Fault(root.name, "surge", 3.0, onset), None, Noise(traffic_sigma=0.0))

    def rise(name: str) -> float:
        return samples[name][onset].requests / samples[name][onset - 1].requests

    callers = [c.name for c in nodes if root.name in c.callees]
    assert rise(root.name) > 2.5
    assert all(rise(x) > 1.2 for x in root.callees)
    assert all(rise(c) < 1.05 for c in callers if c not in reached(nodes, root.name))
    assert samples[root.name][onset].latency_ms > samples[root.name][onset - 1].latency_ms  # it queues


def test_a_seed_writes_the_same_bytes_whatever_the_string_hashing(tmp_path: Path) -> None:
    """Sets of names iterate in an order Python's per-process hash seed picks: nothing drawn may follow it."""
    written = []
    for hash_seed in ("1", "2"):
        out = tmp_path / hash_seed
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        args = [sys.executable, "-m", "bench.managed_cloud", str(out), "--count", "6", "--kinds", "surge,ramp"]
        subprocess.run(args, check=True, env=env, cwd=Path(__file__).parents[2], capture_output=True)
        written.append({p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert written[0] == written[1]
