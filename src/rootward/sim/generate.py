"""Generate bundles: many incidents from one seed, and the fixed golden set.

Fault types rotate so every type is covered evenly, and topologies rotate
against them so each fault appears in every topology. Each bundle has its own
`random.Random` seeded from (seed, index, topology, fault), so bundle k is the
same whatever the count.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rootward.domain.faults import FAULT_TYPES
from rootward.sim.faults import eligible_entities
from rootward.sim.previous_faults import add_previous_faults, check_previous
from rootward.sim.render import render, write_bundle
from rootward.sim.scenario import Sampling, build_scenario
from rootward.sim.topologies import BUILT_IN, SimTopology, load_topology
from rootward.sim.traces import MAX_SPANS

GOLDEN_SEED = 20260601
GOLDEN_PER_FAULT = 5  # 15 fault types x 5 = 75 bundles across the 3 built-in topologies
# Plus the hard cases (`sim/hard_cases.py`): 4 healthy kinds and 2 hard fault kinds, 5 of each.


@dataclass(frozen=True)
class Generated:
    path: Path
    topology: str
    fault_type: str
    cause: str


@dataclass(frozen=True)
class Previous:
    """Earlier faults each bundle's window holds: of these types, starting these minutes before the incident."""

    faults: tuple[str, ...]
    minutes: tuple[int, ...]


def plan_bundles(count: int, topologies: Sequence[SimTopology], faults: Sequence[str]) -> list[tuple[SimTopology, str]]:
    """Which (topology, fault) each of `count` bundles gets."""
    for f in faults:
        if f not in FAULT_TYPES:
            raise ValueError(f"unknown fault type {f!r}; known: {', '.join(FAULT_TYPES)}")
    out: list[tuple[SimTopology, str]] = []
    n = len(faults)
    for i in range(count):
        fault = faults[i % n]
        start = (i + i // n) % len(topologies)
        for k in range(len(topologies)):
            topo = topologies[(start + k) % len(topologies)]
            if eligible_entities(topo, fault):
                out.append((topo, fault))
                break
        else:
            raise ValueError(f"no topology given has an entity where {fault} can happen")
    return out


def bundle_files(
    topo: SimTopology,
    fault: str,
    seed: int | str,
    index: int,
    max_spans: int = MAX_SPANS,
    sampling: Sampling | None = None,
    previous: Previous | None = None,
) -> tuple[str, dict[str, bytes], str]:
    """(bundle id, files, cause) for bundle `index` of a run with `seed`."""
    rng = random.Random(f"rootward-sim/{seed}/{index}/{topo.name}/{fault}")
    bundle_id = f"{topo.name}-{seed}-{index:03d}".lower()
    scenario = build_scenario(topo, fault, rng, bundle_id, sampling=sampling)
    if previous is not None:
        earlier = random.Random(f"rootward-sim-previous/{seed}/{index}/{topo.name}/{fault}")
        add_previous_faults(scenario, previous.faults, previous.minutes, earlier)
    return bundle_id, render(scenario, rng, max_spans), scenario.cause.name


def generate(
    out: Path,
    count: int,
    seed: int | str,
    topologies: Sequence[str] | None = None,
    faults: Sequence[str] | None = None,
    max_spans: int = MAX_SPANS,
    sampling: Sampling | None = None,
    previous_minutes: Sequence[int] = (),
) -> list[Generated]:
    """Write `count` bundles under `out` (each with at most `max_spans` spans); returns what was written.

    `previous_minutes`: each bundle also holds earlier faults of the run's fault types, one
    starting each of these many minutes before its incident's onset (`sim/previous_faults.py`).
    """
    if previous_minutes:
        check_previous(previous_minutes)
    topos = [load_topology(t) for t in topologies] if topologies else list(BUILT_IN.values())
    if faults:
        fault_list = list(faults)
    else:
        # Without an explicit list, every fault the topologies can host (a topology without a DNS
        # server cannot have dns_failure); an explicit list that cannot be hosted is an error.
        fault_list = [f for f in FAULT_TYPES if any(eligible_entities(t, f) for t in topos)]
        if not fault_list:
            raise ValueError("no fault type can happen in the given topologies (do entities have dependents?)")
    previous = Previous(tuple(fault_list), tuple(previous_minutes)) if previous_minutes else None
    written: list[Generated] = []
    for index, (topo, fault) in enumerate(plan_bundles(count, topos, fault_list)):
        bundle_id, files, cause = bundle_files(topo, fault, seed, index, max_spans, sampling, previous)
        path = write_bundle(files, out / bundle_id)
        written.append(Generated(path, topo.name, fault, cause))
    return written


def generate_golden(out: Path) -> list[Generated]:
    """The golden set: every fault type 5 times across all built-in topologies, then the hard cases
    (20 healthy bundles that must get `no_fault`, 10 dual-fault and missing-series ones)."""
    from rootward.sim.hard_cases import generate_hard_cases

    written = generate(out, count=GOLDEN_PER_FAULT * len(FAULT_TYPES), seed=GOLDEN_SEED)
    hard = generate_hard_cases(out, GOLDEN_SEED)
    return written + [Generated(path, topology, kind, "") for path, topology, kind in hard]
