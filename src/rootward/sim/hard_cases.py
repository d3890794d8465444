"""The golden set's hard cases: healthy incidents (`sim/healthy.py`) and hard faults (`sim/hard_faults.py`).

Kinds rotate over the built-in topologies; each bundle has its own
`random.Random` seeded from (seed, kind, index), so adding a kind never changes
the bundles of another.
"""

from __future__ import annotations

import random
from pathlib import Path

from rootward.sim.hard_faults import HARD_FAULT_KINDS, hard_fault_files
from rootward.sim.healthy import HEALTHY_KINDS, healthy_files
from rootward.sim.render import write_bundle
from rootward.sim.topologies import BUILT_IN

PER_KIND = 5
KINDS = (*HEALTHY_KINDS, *HARD_FAULT_KINDS)


def hard_case_files(kind: str, index: int, seed: int | str) -> tuple[str, dict[str, bytes]]:
    """(bundle id, files) of hard case `index` of `kind`."""
    topos = list(BUILT_IN.values())
    topo = topos[(index + KINDS.index(kind)) % len(topos)]
    rng = random.Random(f"rootward-sim-hard/{seed}/{kind}/{index}/{topo.name}")
    bundle_id = f"{topo.name}-{kind}-{index:02d}"
    if kind in HEALTHY_KINDS:
        return bundle_id, healthy_files(topo, kind, rng, bundle_id)
    return bundle_id, hard_fault_files(topo, kind, rng, bundle_id, index)


def generate_hard_cases(out: Path, seed: int | str, per_kind: int = PER_KIND) -> list[tuple[Path, str, str]]:
    """Write `per_kind` bundles of every hard kind under `out`: (path, topology, kind) each."""
    written = []
    for kind in KINDS:
        for i in range(per_kind):
            bundle_id, files = hard_case_files(kind, i, seed)
            written.append((write_bundle(files, out / bundle_id), bundle_id.split("-", 1)[0], kind))
    return written
