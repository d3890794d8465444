"""Without a map, an entity showing only symptoms that began after another's cause-like move is its victim.

The victim rules (`engine.victims`) follow the dependency graph: a caller whose
latency rose because its callee slowed passes it on. Metrics-only data often
comes with no graph at all (a scrape of every pod, a dataset's CSV), and then
every service whose error or latency series rose outranks the node whose disk
filled or the service whose network was delayed: the symptoms are louder, there
are more of them, and nothing says who waits on whom.

Two moves read as a cause with no graph to follow, each in time order:

- a resource that moved the harmful way (CPU, memory, disk, connections...) near
  the onset is a mechanism, unless it is a memory step that killed nothing
  (`victims.could_starve`: memory follows load, and a step minutes before is
  background), or memory alone at an entity that neither slowed, failed nor was
  killed (`_starving`); errors and latency that began after it (or within
  SAME_MOMENT_S of it) may be what it caused, here or downstream;
- a latency that stepped up and held (`victims.HELD`) is what callers time out
  on: symptoms that began at least `victims.FAILED_FIRST_S` after it may be its
  timeouts, as `victims._slowed_first` reads them along a graph. Only errors:
  a latency that rose says nothing of who waits on whom without a graph.

So with no graph, an entity whose only evidence is symptoms (no resource of its
own moved, no failure lines, no change, no own work in the spans) is read as a
possible victim of the earliest such cause elsewhere. It still ranks, a victim's
share below; the cause keeps its own score.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rootward.context.anomaly import Anomaly
from rootward.engine.signals import EntityProfile
from rootward.engine.signatures import log_matches
from rootward.engine.victims import FAILED_FIRST_S, HELD, could_starve

# Series sampled seconds apart do not order two changes that began this close together.
SAME_MOMENT_S = 30


@dataclass(frozen=True)
class UnmappedCauses:
    """Per entity with a cause-like move, the moment from which a symptom that began could be its doing."""

    resources: dict[str, int] = field(default_factory=dict)  # from SAME_MOMENT_S before its resource moved
    slowed: dict[str, int] = field(default_factory=dict)  # from FAILED_FIRST_S after its latency stepped up


def _starving(p: EntityProfile, onset: int | None) -> list[Anomaly]:
    """The resources of `p` that can starve others (`victims.could_starve`); memory not alone at an entity
    with no symptom of its own.

    Memory that grows starves its own process first (collection pauses, swapping) and others
    only once it is killed at its limit: a pod whose memory climbed while it answered as fast
    as ever slowed no one. A heap drifting up by a tenth over eight minutes made a pod whose
    network was delayed its victim, with no graph to say the two ever talk.
    """
    if not could_starve(p, onset):
        return []
    if p.symptoms or "oom_kill" in log_matches(p.own_logs):
        return p.resources
    others = [a for a in p.resources if a.family != "memory"]
    return others if could_starve(replace(p, resources=others), onset) else []


def unmapped_causes(profiles: dict[str, EntityProfile], onset: int | None) -> UnmappedCauses:
    """The resources that moved in time for this incident in a way that can starve others, and the
    latencies that stepped up and held."""
    out = UnmappedCauses()
    for e, p in profiles.items():
        if starving := _starving(p, onset):
            out.resources[e] = min(a.onset for a in starving) - SAME_MOMENT_S
        held = [a.onset for a in p.symptoms if a.family == "latency" and a.shape in HELD]
        if held:
            out.slowed[e] = min(held) + FAILED_FIRST_S
    return out


def unmapped_victim_of(entity: str, profile: EntityProfile, causes: UnmappedCauses, *, traced_own: bool) -> str | None:
    """The earliest cause elsewhere, when this entity shows nothing but symptoms that began after it.

    A slowdown elsewhere explains errors (timeouts), not a latency alone: without a graph, whose
    latency showed first says nothing of who waits on whom (a callee's delayed network shows in its
    callers' latency before its own).
    """
    if profile.resources or profile.own_logs or profile.changes or traced_own or not profile.symptoms:
        return None
    began = min(a.onset for a in profile.symptoms)
    candidates = dict(causes.resources)
    if any(a.family == "errors" for a in profile.symptoms):
        for c, at in causes.slowed.items():
            candidates[c] = min(at, candidates.get(c, at))
    earlier = [(at, c) for c, at in candidates.items() if c != entity and at <= began]
    return min(earlier)[1] if earlier else None


def timed_out_on(entity: str, profile: EntityProfile, causes: UnmappedCauses, *, traced_own: bool) -> str | None:
    """The latency elsewhere this entity's symptoms are timeouts on, when it both slowed and failed after it.

    A caller timing out waits first (its latency rises towards the timeout) and then fails:
    both at least `FAILED_FIRST_S` after a latency elsewhere stepped up and held, with nothing
    of its own behind them. Everything it shows is then that slowdown seen again, and it ranks
    below it (`hypotheses.rank_below_causes`). Errors alone are not read so: a caller failing
    without waiting is not timing out.
    """
    cause = unmapped_victim_of(entity, profile, causes, traced_own=traced_own)
    families = {a.family for a in profile.symptoms}
    if cause is None or cause not in causes.slowed or not {"errors", "latency"} <= families:
        return None
    return cause if causes.slowed[cause] <= min(a.onset for a in profile.symptoms) else None
