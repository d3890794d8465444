"""The sampled copy keeps a share of the traces, each one whole, and everything else as it was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.trace_sampling import copy_bundle

from rootward.bundle.load import load_bundle
from rootward.sim.generate import generate


def test_a_share_of_whole_traces_is_kept_and_the_rest_of_the_bundle_is_untouched(tmp_path: Path) -> None:
    (made,) = generate(tmp_path / "sim", count=1, seed=7, topologies=["shop"], faults=["network_latency"])
    src, dst = made.path, tmp_path / "sampled" / made.path.name
    copy_bundle(src, dst, keep=0.2)
    original, copy = load_bundle(src), load_bundle(dst)
    traces = {s.trace_id for s in original.spans}
    sampled = {s.trace_id for s in copy.spans}
    assert sampled < traces and 0.1 < len(sampled) / len(traces) < 0.3
    assert len(copy.spans) == sum(s.trace_id in sampled for s in original.spans)  # whole traces
    for name in ("metrics.csv", "alerts.json", "incident.yaml", "logs.jsonl", "topology.yaml"):
        assert (dst / name).read_bytes() == (src / name).read_bytes()
    again = tmp_path / "again" / made.path.name
    copy_bundle(src, again, keep=0.2)
    assert (again / "traces.jsonl").read_bytes() == (dst / "traces.jsonl").read_bytes()  # the same in every run


def test_the_command_refuses_a_share_outside_0_to_1(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bench.trace_sampling", str(tmp_path), str(tmp_path / "out"), "--keep", "1.5"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert run.returncode == 2 and "a share of the traces" in run.stderr
