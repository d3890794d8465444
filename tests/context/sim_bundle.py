"""A simulated bundle on disk whose metrics are all there, for tests that rewrite its metrics.csv."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from rootward.sim.generate import bundle_files
from rootward.sim.topologies import BUILT_IN


def metrics_bundle(root: Path, fault_type: str, seed: str, *, without: Iterable[str] = ()) -> tuple[Path, str]:
    """The first simulated `fault_type` on the shop topology that kept its metrics (some runs drop a
    source on purpose), written under `root` without the files named in `without`; and its cause."""
    left_out = set(without)
    for index in range(20):
        bundle_id, files, cause = bundle_files(BUILT_IN["shop"], fault_type, seed, index)
        if "metrics.csv" in files and not json.loads(files["truth.json"])["missing_sources"]:
            out = root / bundle_id
            for name, data in files.items():
                if name not in left_out:
                    (out / name).parent.mkdir(parents=True, exist_ok=True)
                    (out / name).write_bytes(data)
            return out, cause
    raise AssertionError(f"no simulated {fault_type} kept its metrics")
