"""The minute-file copy keeps spans and log lines only in the blocks Nezha's snapshot kept, everything else whole."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

from bench.minute_files import blocks, copy_bundle

from rootward.bundle.load import load_bundle
from rootward.sim.generate import generate


def test_spans_and_lines_survive_only_in_the_blocks_and_whole_traces_stay_together(tmp_path: Path) -> None:
    (made,) = generate(tmp_path / "sim", count=1, seed=7, topologies=["shop"], faults=["network_latency"])
    src, dst = made.path, tmp_path / "mf" / made.path.name
    copy_bundle(src, dst, block_min=3, lead_min=2, earlier_min=(8,))
    original, copy = load_bundle(src), load_bundle(dst)
    fired = min(a.starts_at for a in original.alerts)
    keep = blocks(fired - timedelta(minutes=2), 3, (8,))
    assert keep == [
        (fired - timedelta(minutes=10), fired - timedelta(minutes=7)),
        (fired - timedelta(minutes=2), fired + timedelta(minutes=1)),
    ]

    assert original.spans and copy.spans and len(copy.spans) < len(original.spans)
    began: dict[str, datetime] = {}
    for s in original.spans:
        began[s.trace_id] = min(s.start, began.get(s.trace_id, s.start))
    inside = {t for t, at in began.items() if any(a <= at < b for a, b in keep)}
    assert inside and {s.trace_id for s in copy.spans} == inside
    assert len(copy.spans) == sum(s.trace_id in inside for s in original.spans)  # whole traces

    lines = (dst / "logs.jsonl").read_text().splitlines()
    assert lines and len(lines) < len((src / "logs.jsonl").read_text().splitlines())
    assert all(any(a <= r.ts < b for a, b in keep) for r in copy.logs or ())
    for name in ("metrics.csv", "alerts.json", "truth.json", "topology.yaml", "incident.yaml"):
        assert (dst / name).read_bytes() == (src / name).read_bytes()


def test_a_directory_without_bundles_is_a_clear_error(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bench.minute_files", str(tmp_path), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert run.returncode == 2 and "no bundles" in run.stderr
