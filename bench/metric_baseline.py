"""The metric change signal alone: rank entities by their best change score, as BARO does.

    python -m bench.metric_baseline DIR [DIR ...]

For each bundle directory with a truth.json: the joint onset and each entity's
best change score from `context.metric_change` alone (no topology, logs or
rule catalog), ranked by score. Prints entity@1 and entity@3 twice: for BARO's
score as it is (`sustained=False`) and for the module's score (weighted by how
much of the after stayed far out). This is the ceiling of the metric signal,
the number to compare the full ranking with. Window as `assemble_context`'s
default: from 5 minutes before the first alert to 10 minutes after it.
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from pathlib import Path

from rootward.bundle.load import load_bundle
from rootward.context.metric_change import metric_changes
from rootward.eval.truth import has_truth, read_truth

BEFORE = timedelta(minutes=5)
AFTER = timedelta(minutes=10)


def ranks(directory: Path, *, sustained: bool) -> list[int | None]:
    """Per bundle, the rank of the true entity in the module's ranking (None: not ranked)."""
    out: list[int | None] = []
    for root in sorted(p for p in directory.iterdir() if (p / "incident.yaml").exists() and has_truth(p)):
        bundle = load_bundle(root)
        fired = bundle.meta.fired_at
        _, changes = metric_changes(
            bundle.metrics or [],
            fired_at=int(fired.timestamp()),
            end=int((fired + AFTER).timestamp()),
            fallback=int((fired - BEFORE).timestamp()),
            sustained=sustained,
        )
        truth = read_truth(root).entities
        order = [m.entity for m in changes]
        out.append(next((i + 1 for i, e in enumerate(order) if e in truth), None))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    args = parser.parse_args()
    for directory in args.dirs:
        for label, sustained in (("BARO score", False), ("module score", True)):
            found = ranks(directory, sustained=sustained)
            n = len(found) or 1
            at1 = sum(r == 1 for r in found) / n
            at3 = sum(r is not None and r <= 3 for r in found) / n
            print(f"{directory}  {label:12s}  n={len(found)}  entity@1={at1:.3f}  entity@3={at3:.3f}")


if __name__ == "__main__":
    main()
