"""Metrics-only and coarse-sampled copies of a directory of bundles, for measuring the metric signal alone.

    python -m bench.metric_variants SRC DST [--step 300]

Each bundle is copied without `traces.jsonl` and `logs.jsonl` (everything else
kept). With `--step N`, each series' rows are also aggregated to N-second means,
timestamped at the start of their bucket (as CloudWatch reports a period), so a
1-minute series becomes a 5-minute one: the coarse-sampling check.
"""

from __future__ import annotations

import argparse
import csv
import shutil
from collections import defaultdict
from pathlib import Path

DROPPED = ("traces.jsonl", "logs.jsonl")


def resample(src: Path, dst: Path, step: int) -> None:
    buckets: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    with src.open(newline="") as f:
        for row in csv.DictReader(f):
            t = int(float(row["timestamp"]))
            buckets[(row["service"], row["metric"], t - t % step)].append(float(row["value"]))
    with dst.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["timestamp", "service", "metric", "value"])
        for (service, metric, t), vals in sorted(buckets.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])):
            out.writerow([t, service, metric, repr(sum(vals) / len(vals))])


def copy_bundle(src: Path, dst: Path, step: int | None) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    for item in src.iterdir():
        if item.name in DROPPED:
            continue
        target = dst / item.name
        if item.is_dir():
            shutil.copytree(item, target, dirs_exist_ok=True)
        elif item.name == "metrics.csv" and step:
            resample(item, target, step)
        else:
            shutil.copyfile(item, target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("dst", type=Path)
    parser.add_argument("--step", type=int, default=None, help="aggregate metrics to means over this many seconds")
    args = parser.parse_args()
    for bundle in sorted(p for p in args.src.iterdir() if (p / "incident.yaml").exists()):
        copy_bundle(bundle, args.dst / bundle.name, args.step)


if __name__ == "__main__":
    main()
