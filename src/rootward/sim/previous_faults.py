"""Earlier faults of the same session: what back-to-back fault-injection runs leave in an incident's window.

Fault-injection datasets inject one fault after another into one running system,
minutes apart, and keep each run's data from one window. So the minutes before an
incident hold the previous run's fault: its cause's series bent, its callers slow or
failing, its lines and its spans, then a recovery. Where a dataset kept its spans
and lines only around each injection (`bench/minute_files.py`), those earlier minutes
are even its only baseline.

`add_previous_faults` gives a scenario such faults: each one of the run's fault
types at any entity it can hit (the incident's own cause too: runs often hit the same
service twice in a row), beginning the given minutes before the incident's onset and
lasting `LASTS_S`. It draws from its own `random.Random`, so the incident itself stays
what the seed makes it. Every effect is the fault's usual one (`sim/faults.py`,
`sim/trace_faults.py`), cut off at its end.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rootward.sim.faults import FAULTS, eligible_entities
from rootward.sim.scenario import PreviousFault, Scenario, fault_context, victims_of

LASTS_S = 5 * 60  # how long an earlier fault runs before it is removed
MIN_APART_S = LASTS_S + 60  # earlier faults (and the incident) start at least this far apart


def check_previous(minutes: Sequence[int]) -> None:
    """Raise ValueError unless every earlier fault is over a minute before the next one (or the incident) starts."""
    starts = sorted({0, *(-60 * m for m in minutes)})
    apart = all(b - a >= MIN_APART_S for a, b in zip(starts, starts[1:], strict=False))
    if len(starts) != len(minutes) + 1 or starts[-1] != 0 or not apart:
        raise ValueError(
            f"earlier faults must start at least {MIN_APART_S // 60} minutes before the incident's onset and apart "
            f"(each runs {LASTS_S // 60} minutes); got {', '.join(map(str, minutes))}"
        )


def add_previous_faults(sc: Scenario, faults: Sequence[str], minutes: Sequence[int], rng: random.Random) -> None:
    """Give `sc` an earlier fault starting each of `minutes` before its onset, of a type in `faults`."""
    check_previous(minutes)
    for m in sorted(minutes, reverse=True):
        onset = sc.onset - 60 * m
        previous = _previous(sc, faults, onset, rng)
        if previous is None:
            continue
        sc.previous.append(previous)
        logged = [dict(c) for c in previous.plan.changes]
        # A faulty change is rolled back when its fault is removed.
        undone = [{**c, "id": f"{c['id']}-rollback", "time": previous.end, "summary": f"roll back {c['version']}"}
                  for c in logged if c.get("kind") == "deploy"]  # fmt: skip
        sc.changes = sorted([*sc.changes, *logged, *undone], key=lambda c: (int(c["time"]), str(c["id"])))


def _previous(sc: Scenario, faults: Sequence[str], onset: int, rng: random.Random) -> PreviousFault | None:
    for fault in rng.sample(list(faults), len(faults)):
        pool = eligible_entities(sc.topology, fault)
        if not pool:
            continue
        cause = rng.choice(pool)

        ctx = fault_context(sc, cause, onset, rng)
        plan = FAULTS[fault](ctx)
        if plan.metrics_stop is not None:  # a process that stopped reporting does not come back by itself
            continue
        if not plan.start:
            plan.start = onset
        return PreviousFault(cause, fault, onset, onset + LASTS_S, plan, victims_of(sc.topology, cause, plan, rng))
    return None
