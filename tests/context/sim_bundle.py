"""A simulated bundle on disk whose metrics are all there, for tests that rewrite its metrics.csv."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from pathlib import Path

from rootward.sim.generate import bundle_files
from rootward.sim.scenario import build_scenario
from rootward.sim.topologies import BUILT_IN


def metrics_bundle(
    root: Path, fault_type: str, seed: str, *, without: Iterable[str] = (), moves: str = ""
) -> tuple[Path, str]:
    """The first simulated `fault_type` on the shop topology that kept its metrics (some runs drop a
    source on purpose), written under `root` without the files named in `without`; and its cause.
    With `moves`, the first whose fault moves that series of its cause (a fault type takes several forms)."""
    left_out = set(without)
    topo = BUILT_IN["shop"]
    for index in range(20):
        bundle_id, files, cause = bundle_files(topo, fault_type, seed, index)
        rng = random.Random(f"rootward-sim/{seed}/{index}/{topo.name}/{fault_type}")  # as bundle_files seeds it
        has = not moves or moves in build_scenario(topo, fault_type, rng, bundle_id).plan.shapes
        if has and "metrics.csv" in files and not json.loads(files["truth.json"])["missing_sources"]:
            out = root / bundle_id
            for name, data in files.items():
                if name not in left_out:
                    (out / name).parent.mkdir(parents=True, exist_ok=True)
                    (out / name).write_bytes(data)
            return out, cause
    raise AssertionError(f"no simulated {fault_type} kept its metrics")
