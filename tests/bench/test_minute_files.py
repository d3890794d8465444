"""The minute-file copy keeps spans and log lines only in the blocks Nezha's snapshot kept, everything else whole."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

from bench.minute_files import blocks, copy_bundle, incident_block_start

from rootward.bundle.load import load_bundle
from rootward.sim.generate import generate


def test_spans_and_lines_survive_only_in_the_blocks_and_whole_traces_stay_together(tmp_path: Path) -> None:
    (made,) = generate(tmp_path / "sim", count=1, seed=7, topologies=["shop"], faults=["network_latency"])
    src, dst = made.path, tmp_path / "mf" / made.path.name
    copy_bundle(src, dst, block_min=3, lead_min=2, earlier_min=(8,))
    original, copy = load_bundle(src), load_bundle(dst)
    fired = min(a.starts_at for a in original.alerts)
    onset = datetime.fromisoformat(json.loads((src / "truth.json").read_text())["fault_onset"].replace("Z", "+00:00"))
    start = incident_block_start(src, lead_min=2)
    assert start == max(fired - timedelta(minutes=2), onset)  # two minutes before the alert, not before the fault
    keep = blocks(start, 3, (8,))
    assert keep == [
        (start - timedelta(minutes=8), start - timedelta(minutes=5)),
        (start, start + timedelta(minutes=3)),
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


def test_an_alert_before_the_fault_does_not_move_the_block_before_it(tmp_path: Path) -> None:
    (made,) = generate(tmp_path / "sim", count=1, seed=7, topologies=["shop"], faults=["network_latency"])
    src = made.path
    truth = json.loads((src / "truth.json").read_text())
    onset = datetime.fromisoformat(truth["fault_onset"].replace("Z", "+00:00"))
    payloads = json.loads((src / "alerts.json").read_text())  # Alertmanager webhook payloads
    alert = (payloads[0] if isinstance(payloads, list) else payloads)["alerts"][0]
    early = {  # an unrelated alert long before the fault
        **alert,
        "labels": {**alert["labels"], "alertname": "DiskSpaceLow"},
        "fingerprint": "0000000000000001",
        "startsAt": (onset - timedelta(minutes=20)).isoformat().replace("+00:00", "Z"),
    }
    (src / "alerts.json").write_text(json.dumps({"version": "4", "status": "firing", "alerts": [alert, early]}))
    assert len(load_bundle(src).alerts) == 2
    assert incident_block_start(src) == onset


def test_a_directory_without_bundles_is_a_clear_error(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bench.minute_files", str(tmp_path), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert run.returncode == 2 and "no bundles" in run.stderr
