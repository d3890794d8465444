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

Loss has no limit to reach but a floor to pass: a loss ratio that peaked
under LOSS_FLOOR (one packet in a thousand) drops too few packets for the
retransmits to show in a p99 or an error rate, however sharply it rose from
one in a million. A packet-loss hypothesis resting on such a ratio alone is
left out the same way.
"""

from __future__ import annotations

import re

from rootward.context.anomaly import Anomaly
from rootward.context.assemble import Context
from rootward.context.metric_names import CAPACITY_RATIO
from rootward.domain.hypothesis import Hypothesis, renumbered

HEADROOM = 0.8
EXHAUSTION_FAULTS = frozenset({"cpu_saturation", "memory_leak", "disk_full"})
# CPU is a rate: work queues only while it stays at its limit, so a burst to 0.85 inside a
# post-onset median of 0.6 is contention now and then, not saturation. Memory and disk are
# levels: the peak is what meets the limit (OOM, ENOSPC).
SUSTAINED_FAULTS = frozenset({"cpu_saturation"})
LOSS_FLOOR = 1e-3
LOSS_RATIO = re.compile(r"(loss|drop|retrans)\w*_(ratio|share|fraction)$", re.I)
LOSS_PERCENT = re.compile(r"(loss|drop|retrans)\w*_(percent|pct)$", re.I)


def _only_support(ctx: Context, h: Hypothesis, metric: re.Pattern[str]) -> list[Anomaly]:
    """The anomalies of metrics `metric` names, when they are all the hypothesis rests on (else none)."""
    peaks = {a.evidence.cite: a for a in ctx.anomalies}
    support = [e for e in h.evidence if e.kind not in ("topology", "alert")]
    found = [peaks[e.cite] for e in support if e.cite in peaks and metric.search(peaks[e.cite].metric)]
    return found if found and len(found) == len(support) else []


def _loss_share(a: Anomaly) -> float | None:
    """The share of packets lost at the peak, when the metric states loss as a ratio or a percentage."""
    if LOSS_RATIO.search(a.metric):
        return a.peak
    return a.peak / 100 if LOSS_PERCENT.search(a.metric) else None


def below_harm(a: Anomaly) -> str | None:
    """Why a moved share cannot be doing harm now (far from its limit, or too little loss), or None.

    The verdict (`engine/verdict.py`) reads such a move as accounted for: a disk creeping from
    0.60 to 0.66 of capacity, or loss from one packet in a million to two, is no fault of now.
    """
    if a.derived or a.direction != "up":
        return None
    if CAPACITY_RATIO.search(a.metric):
        level = a.after if a.family == "cpu" else a.peak
        return f"{a.service} {a.metric} at {level:.2f} of capacity, far from its limit" if level < HEADROOM else None
    share = _loss_share(a)
    if share is None or share >= LOSS_FLOOR:
        return None
    return f"{a.service} {a.metric} peaked at {share:.4%} of packets, too little to slow anything"


def _negligible_loss(ctx: Context, h: Hypothesis) -> str | None:
    """The sentence saying why `h` cannot be packet loss (too little of it), or None when it can."""
    if h.fault_type != "packet_loss":
        return None
    shares = [(a, a.peak) for a in _only_support(ctx, h, LOSS_RATIO)]
    shares = shares or [(a, a.peak / 100) for a in _only_support(ctx, h, LOSS_PERCENT)]
    if not shares or any(share >= LOSS_FLOOR for _, share in shares):
        return None
    worst, share = max(shares, key=lambda x: x[1])
    return f"{h.entity} {worst.metric} moved but peaked at {share:.4%} of packets: too little loss for {h.fault_type}"


def _far_from_limit(ctx: Context, h: Hypothesis) -> str | None:
    """The sentence saying why `h` cannot be exhaustion, or None when it can."""
    if h.fault_type not in EXHAUSTION_FAULTS:
        return None
    ratios = _only_support(ctx, h, CAPACITY_RATIO)
    if not ratios or any(_level(h.fault_type, a) >= HEADROOM for a in ratios):
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
        why = _far_from_limit(ctx, h) or _negligible_loss(ctx, h)
        if why is None:
            kept.append(h)
        else:
            gaps.append(why)
    if not gaps:
        return ranked, []
    return renumbered(kept), list(dict.fromkeys(gaps))
