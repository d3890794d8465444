"""An unwatched dependency, read from what its callers show.

Third-party APIs, managed resolvers and vendors export nothing to us. When a
caller's latency or errors rose with nothing of its own to explain them (no
resource of its own moved, no failure logs, no change just before), the
dependency we cannot see is a suspect an SRE would name: "notifier is slow,
and the only thing it calls that we do not watch is the SMS gateway". With
logs, callers usually name it (`hypotheses._borrowed`); this covers the
metrics-only case, where nothing names anything.

The evidence is second-hand, so it counts a share of the callers' own symptom
evidence, scaled by how many of its watched callers show it: enough to put the
dependency among the hypotheses, rarely enough to outrank a watched entity
with evidence of its own. A third-party API (`kind: external`) is the
exception: it can never report anything, so its callers' symptoms count whole
(and `victims.victim_of_dependency` reads a caller with no cause of its own as its
victim); an uninstrumented database keeps the share, as it is as often its
caller's victim as its cause. A store whose only series are its CPU and memory
(`EntityProfile.reports_symptoms` false) is as unwatched here: those cannot say
it was slow, and a delay on its network shows in its callers alone.
"""

from __future__ import annotations

import networkx as nx

from rootward.context.log_signals import LogSignal
from rootward.domain.evidence import EvidenceRef
from rootward.engine.signals import MIN_BLAME_LINES, EntityProfile
from rootward.engine.signatures import FRESH_CHANGE_S, Signature, faults_named

# A share of the callers' symptom evidence: second-hand, never as strong as their own.
SILENT_SHARE = 0.5
# A third-party API (`kind: external`) can never report anything: its callers' symptoms are all of it.
VENDOR_SHARE = 1.0
# A caller's own resource at least this strong explains its symptoms itself.
OWN_CAUSE = 0.35
# A signature read only from others' symptoms is weak: any specific evidence outranks it.
SILENT_SIGNATURE_SCORE = 0.25
# Callers that must all show it before an unwatched store is read as their one cause.
MIN_SHARED_CALLERS = 2
# What a line says of a call rather than of the caller: it was slow, timed out or went unanswered.
ABOUT_A_CALL = frozenset({"network_latency", "dependency_down"})


def unexplained(p: EntityProfile, onset: int | None) -> bool:
    """Symptoms with nothing of its own behind them: no resource, no failure logs, no fresh change.

    Lines that only say a call was slow or went unanswered (`slow response from upstream`,
    `Read timed out`, `connection refused`) are about what it called, not failures of its own:
    a client waiting on a vendor says just that, and its own work never failed. Nor are a line
    or two that name nothing (`retrying idempotent call`): failures of its own repeat
    (MIN_BLAME_LINES since the onset).
    """
    fresh = any(c.seconds_before_onset <= FRESH_CHANGE_S for c in p.changes)
    own_failures = sum(s.onset_count for s in p.own_logs if not _about_a_call(s)) >= MIN_BLAME_LINES
    return bool(p.symptoms) and p.timely_resource_strength(onset) < OWN_CAUSE and not own_failures and not fresh


def _about_a_call(signal: LogSignal) -> bool:
    named = set(faults_named(signal.template))
    return bool(named) and named <= ABOUT_A_CALL


def silent_dependency(
    entity: str,
    g: nx.DiGraph,
    profiles: dict[str, EntityProfile],
    onset: int | None,
    edges: dict[tuple[str, str], EvidenceRef],
) -> tuple[float, list[Signature]]:
    """Strength 0..1 of the case against an entity with no telemetry of its symptoms, and the fault types it suggests.

    `edges`: the evidence of each topology edge (declared, or seen in traces), cited with the symptoms.
    """
    p = profiles.get(entity)
    if p is None or (p.has_telemetry and p.reports_symptoms) or entity not in g:
        return 0.0, []
    callers = [profiles[c] for c in g.predecessors(entity) if c in profiles and profiles[c].has_telemetry]
    sick = [c for c in callers if unexplained(c, onset)]
    if not sick:
        return 0.0, []
    shared = _shared_by_all(entity, g, profiles, onset) is not None
    share = VENDOR_SHARE if p.kind.lower() == "external" or shared else SILENT_SHARE
    strength = share * max(c.symptom_strength for c in sick) * len(sick) / len(callers)
    refs = [edges[(c.entity, entity)] for c in sick if (c.entity, entity) in edges]
    families = {a.family for c in sick for a in c.symptoms}
    symptoms = [a.evidence for c in sick for a in c.symptoms][:3]
    # Slow callers: delay on the way to it; failing callers: it went away or refuses them.
    readings = [("network_latency", "slowed")] if "latency" in families else []
    readings += [("dependency_down", "failed")] if "errors" in families else []
    who = ", ".join(c.entity for c in sick[:3])
    sigs = [
        Signature(
            fault,
            SILENT_SIGNATURE_SCORE,
            symptoms + refs[:2],
            [f"no telemetry of its own; {who} {verb} with no cause of their own"],
        )
        for fault, verb in readings
    ]
    return strength, sigs


def _shared_by_all(
    entity: str, g: nx.DiGraph, profiles: dict[str, EntityProfile], onset: int | None
) -> list[str] | None:
    """The callers of an unwatched store, when two or more call it, every one shows symptoms with no
    cause of its own, and nothing else they call is abnormal; else None.

    One caller slowed with nothing of its own reads two ways: its own network, or the store's.
    Two or more at once, sharing only that store, read one way: one cause for all of them, the
    store, rather than a fault at each in the same minute.
    """
    p = profiles.get(entity)
    if p is None or (p.has_telemetry and p.reports_symptoms) or entity not in g:
        return None
    callers = [c for c in g.predecessors(entity) if c in profiles and profiles[c].has_telemetry]
    if len(callers) < MIN_SHARED_CALLERS or not all(unexplained(profiles[c], onset) for c in callers):
        return None
    others = {d for c in callers for d in g.successors(c) if d != entity}
    if any(profiles[d].abnormal for d in others if d in profiles):
        return None
    return callers


def waits_on_a_shared_store(e: str, g: nx.DiGraph, profiles: dict[str, EntityProfile], onset: int | None) -> str | None:
    """The unwatched store `e` and its other callers all wait on (`_shared_by_all`), if it is one of them."""
    if e not in g:
        return None
    shared = [d for d in g.successors(e) if e in (_shared_by_all(d, g, profiles, onset) or [])]
    return shared[0] if len(shared) == 1 else None
