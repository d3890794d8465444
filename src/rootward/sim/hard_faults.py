"""Fault incidents that are harder to read: two faults at once, and a fault whose telltale series is missing.

* ``dual-fault``: a second, independent fault starts a few minutes from the
  first on an entity the first does not reach; either one is a right answer;
* ``missing-metric``: the cause's own signature series (disk usage, pool
  connections, lock waits, restarts) is not exported, so only its logs and its
  victims tell.

Both start from an ordinary scenario (`sim/scenario.build_scenario`) and change
only what makes them hard, so their noise, red herrings and alerts are the
usual ones.
"""

from __future__ import annotations

import json
import random

from rootward.domain.faults import FAULT_TYPES
from rootward.sim.faults import FAULTS, SIGNATURES, eligible_entities
from rootward.sim.render import render
from rootward.sim.scenario import AlertSpec, Scenario, build_scenario, fault_context
from rootward.sim.topologies import SimTopology

HARD_FAULT_KINDS = ("dual-fault", "missing-metric")
# Second faults that stay on their own entity (no caller messages, no stopped process).
SECOND_FAULTS = ("cpu_saturation", "disk_full", "memory_leak", "db_lock_contention", "connection_pool_exhaustion")
# Faults whose mechanism the cause also writes in its own logs, so they stay findable without the series.
LOGGED_FAULTS = ("disk_full", "connection_pool_exhaustion", "oom_kill", "db_lock_contention", "memory_leak")


def _second_fault(sc: Scenario, rng: random.Random) -> tuple[str, str] | None:
    """Add an independent fault on an entity the first one does not reach; (entity, fault) or None."""
    for fault in rng.sample(SECOND_FAULTS, len(SECOND_FAULTS)):
        if fault == sc.fault_type:
            continue
        taken = {sc.cause.name, *sc.victims, *sc.cause.dependencies}
        pool = [e for e in eligible_entities(sc.topology, fault) if e.name not in taken]
        if not pool:
            continue
        cause = rng.choice(pool)
        onset = sc.onset + rng.randint(-120, 240)

        ctx = fault_context(sc, cause, onset, rng)
        plan = FAULTS[fault](ctx)
        if plan.metrics_stop is not None:
            continue
        sc.plan.other_shapes.update({(cause.name, m): shape for m, shape in plan.shapes.items()})
        sc.plan.other_shapes.update({k: v for k, v in plan.other_shapes.items() if k[0] not in sc.victims})
        sc.plan.logs += plan.logs
        sc.plan.changes += plan.changes
        sc.changes = sorted([*sc.changes, *plan.changes], key=lambda c: (int(c["time"]), str(c["id"])))
        name, severity = plan.alert or ("HighLatencyP99", "warning")
        at = min(sc.window_end - 300, onset + rng.randint(90, 240))
        sc.alerts = sorted([*sc.alerts, AlertSpec(name, cause.name, severity, at, f"{name} on {cause.name}")],
                           key=lambda a: (a.starts_at, a.entity, a.name))  # fmt: skip
        sc.also_acceptable += [(cause.name, fault), *plan.also_acceptable]
        return cause.name, fault
    return None


def hard_fault_files(topo: SimTopology, kind: str, rng: random.Random, bundle_id: str, index: int) -> dict[str, bytes]:
    """All files of one hard fault bundle, truth included (with what made it hard)."""
    if kind == "dual-fault":
        fault = FAULT_TYPES[index % len(FAULT_TYPES)]
        sc = build_scenario(topo, fault, rng, bundle_id)
        second = _second_fault(sc, rng)
        extra = {"second_fault": list(second) if second else None}
    else:
        candidates = [f for f in LOGGED_FAULTS if eligible_entities(topo, f)]
        fault = candidates[index % len(candidates)]
        sc = build_scenario(topo, fault, rng, bundle_id)
        dropped = [m for m in SIGNATURES[fault][0] if (sc.cause.name, m) in sc.baselines]
        for m in dropped:
            del sc.baselines[(sc.cause.name, m)]
        sc.missing = ()
        extra = {"missing_series": [f"{sc.cause.name}/{m}" for m in dropped]}
    files = render(sc, rng)
    truth = json.loads(files["truth.json"])
    truth.update(extra, kind=kind)
    files["truth.json"] = (json.dumps(truth, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()
    return files
