"""A resource far from its limit is not exhausted: utilisation ratios need headroom used up to be a cause.

Anomaly scores are relative: a host's memory going from 7% to 9% used is a
clear step on a quiet baseline, and real hosts (shared CI machines, busy
nodes) move like that all the time. A metric that states a share of capacity
(`memory_used_ratio`, `cpu_used_ratio`, `disk_used_ratio`, `*_utilization`) can
only support exhaustion (CPU saturation, a memory leak, a full disk) when it got
near its limit: CPU held there after the onset, memory and disk reached it. A
hypothesis whose only support is such a ratio under `HEADROOM` is left out,
with a gap that says so; one with other evidence (logs naming the failure,
restarts) stays.
"""

from __future__ import annotations

import re

from rootward.context.anomaly import Anomaly
from rootward.context.assemble import Context
from rootward.domain.hypothesis import Hypothesis

HEADROOM = 0.8
EXHAUSTION_FAULTS = frozenset({"cpu_saturation", "memory_leak", "disk_full"})
# CPU is a rate: work queues only while it stays at its limit, so a burst to 0.85 inside a
# post-onset median of 0.6 is contention now and then, not saturation. Memory and disk are
# levels: the peak is what meets the limit (OOM, ENOSPC).
SUSTAINED_FAULTS = frozenset({"cpu_saturation"})
CAPACITY_RATIO = re.compile(r"(used|busy|usage)_ratio$|utili[sz]ation(_ratio)?$", re.I)


def _far_from_limit(ctx: Context, h: Hypothesis) -> str | None:
    """The sentence saying why `h` cannot be exhaustion, or None when it can."""
    if h.fault_type not in EXHAUSTION_FAULTS:
        return None
    peaks = {a.evidence.cite: a for a in ctx.anomalies}
    support = [e for e in h.evidence if e.kind not in ("topology", "alert")]
    ratios = [peaks[e.cite] for e in support if e.cite in peaks and CAPACITY_RATIO.search(peaks[e.cite].metric)]
    if not ratios or len(ratios) < len(support) or any(_level(h.fault_type, a) >= HEADROOM for a in ratios):
        return None
    worst = max(ratios, key=lambda a: _level(h.fault_type, a))
    if h.fault_type in SUSTAINED_FAULTS:
        said = f"held {worst.after:.2f} of capacity after the onset (peak {worst.peak:.2f})"
    else:
        said = f"peaked at {worst.peak:.2f} of capacity"
    return f"{h.entity} {worst.metric} moved but {said}: too far from its limit for {h.fault_type}"


def _level(fault_type: str, a: Anomaly) -> float:
    """How close to its limit the ratio got, the way that fault exhausts it."""
    return a.after if fault_type in SUSTAINED_FAULTS else a.peak


def drop_far_from_limit(ctx: Context, ranked: list[Hypothesis]) -> tuple[list[Hypothesis], list[str]]:
    """The hypotheses that exhaustion does not rule out (renumbered, priors renormalised), and a gap per drop."""
    kept: list[Hypothesis] = []
    gaps: list[str] = []
    for h in ranked:
        why = _far_from_limit(ctx, h)
        if why is None:
            kept.append(h)
        else:
            gaps.append(why)
    if not gaps:
        return ranked, []
    total = sum(h.prior for h in kept) or 1.0
    return [
        Hypothesis(f"H{i}", h.entity, h.fault_type, round(h.prior / total, 4), h.evidence, h.rationale, h.source)
        for i, h in enumerate(kept, start=1)
    ], list(dict.fromkeys(gaps))
