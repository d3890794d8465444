"""A resource far from its limit is not exhausted: utilisation ratios need headroom used up to be a cause.

Anomaly scores are relative: a host's memory going from 7% to 9% used is a
clear step on a quiet baseline, and real hosts (shared CI machines, busy
nodes) move like that all the time. A metric that states a share of capacity
(`memory_used_ratio`, `cpu_used_ratio`, `disk_used_ratio`, `*_utilization`) can
only support exhaustion (CPU saturation, a memory leak, a full disk) when it got
near its limit. A hypothesis whose only support is such a ratio that stayed
under `HEADROOM` is left out, with a gap that says so; one with other evidence
(logs naming the failure, restarts) stays.
"""

from __future__ import annotations

import re

from rootward.context.assemble import Context
from rootward.domain.hypothesis import Hypothesis

HEADROOM = 0.8
EXHAUSTION_FAULTS = frozenset({"cpu_saturation", "memory_leak", "disk_full"})
CAPACITY_RATIO = re.compile(r"(used|busy|usage)_ratio$|utili[sz]ation(_ratio)?$", re.I)


def _far_from_limit(ctx: Context, h: Hypothesis) -> str | None:
    """The sentence saying why `h` cannot be exhaustion, or None when it can."""
    if h.fault_type not in EXHAUSTION_FAULTS:
        return None
    peaks = {a.evidence.cite: a for a in ctx.anomalies}
    support = [e for e in h.evidence if e.kind not in ("topology", "alert")]
    ratios = [peaks[e.cite] for e in support if e.cite in peaks and CAPACITY_RATIO.search(peaks[e.cite].metric)]
    if not ratios or len(ratios) < len(support) or any(a.peak >= HEADROOM for a in ratios):
        return None
    worst = max(ratios, key=lambda a: a.peak)
    return (
        f"{h.entity} {worst.metric} moved but peaked at {worst.peak:.2f} of capacity: "
        f"too far from its limit for {h.fault_type}"
    )


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
