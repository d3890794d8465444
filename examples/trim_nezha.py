"""Trim a converted Nezha bundle to a sample small enough to live in the repository.

How the `nezha-ob-*` samples under examples/ were made, so anyone with the full
converted dataset can remake them (or trim another case):

    python examples/trim_nezha.py SOURCE_BUNDLE examples/ --spans 900 --logs 300

- traces.jsonl: whole traces only, chosen by a hash of the trace id (so the latency
  distribution is not biased toward short or long traces) until the span budget is
  reached; lines keep their original order.
- logs.jsonl: every WARN/ERROR/FATAL line, then INFO/DEBUG lines evenly spaced in
  file order, up to the line budget; original order kept.
- metrics.csv: every sample kept; values rounded to 6 significant digits.
- incident.yaml, alerts.json, topology.yaml, changes.json, truth.json: unchanged.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from pathlib import Path

UNCHANGED = ("incident.yaml", "alerts.json", "topology.yaml", "changes.json", "truth.json")
SEVERE = {"WARN", "WARNING", "ERROR", "FATAL", "CRITICAL"}


def trim_traces(lines: list[str], budget: int) -> list[str]:
    by_trace: dict[str, int] = {}
    for line in lines:
        tid = json.loads(line)["trace_id"]
        by_trace[tid] = by_trace.get(tid, 0) + 1
    order = sorted(by_trace, key=lambda t: hashlib.sha256(t.encode()).hexdigest())
    kept: set[str] = set()
    total = 0
    for tid in order:
        if total + by_trace[tid] > budget:
            continue
        kept.add(tid)
        total += by_trace[tid]
    return [line for line in lines if json.loads(line)["trace_id"] in kept]


def trim_logs(lines: list[str], budget: int) -> list[str]:
    severe = [i for i, line in enumerate(lines) if str(json.loads(line).get("level", "")).upper() in SEVERE]
    rest = [i for i in range(len(lines)) if i not in set(severe)]
    room = max(budget - len(severe), 0)
    step = len(rest) / room if room else 0
    sampled = {rest[int(k * step)] for k in range(room)} if room and rest else set()
    keep = sorted(set(severe[:budget]) | sampled)
    return [lines[i] for i in keep]


def round_metrics(text: str) -> str:
    out = []
    for n, line in enumerate(text.splitlines()):
        if n == 0:
            out.append(line)
            continue
        ts, service, metric, value = line.rsplit(",", 3)[0], *line.rsplit(",", 3)[1:]
        out.append(f"{ts},{service},{metric},{float(value):.6g}")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--spans", type=int, default=900)
    parser.add_argument("--logs", type=int, default=300)
    args = parser.parse_args()
    dest = args.out_dir / args.source.name
    dest.mkdir(parents=True, exist_ok=True)
    for name in UNCHANGED:
        if (args.source / name).is_file():
            shutil.copyfile(args.source / name, dest / name)
    if (args.source / "traces.jsonl").is_file():
        lines = (args.source / "traces.jsonl").read_text().splitlines()
        (dest / "traces.jsonl").write_text("\n".join(trim_traces(lines, args.spans)) + "\n")
    if (args.source / "logs.jsonl").is_file():
        lines = (args.source / "logs.jsonl").read_text().splitlines()
        (dest / "logs.jsonl").write_text("\n".join(trim_logs(lines, args.logs)) + "\n")
    if (args.source / "metrics.csv").is_file():
        (dest / "metrics.csv").write_text(round_metrics((args.source / "metrics.csv").read_text()))
    for f in dest.rglob("*"):
        f.chmod(0o644)
    print(f"{dest}: {sum(f.stat().st_size for f in dest.iterdir()) // 1024} KB")


if __name__ == "__main__":
    main()
