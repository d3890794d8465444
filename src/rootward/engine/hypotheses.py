"""Hypothesis generation and deterministic ranking.

A hypothesis is "fault type F at entity X". Its prior combines:

* **own evidence** at X: resource anomalies (CPU, memory, disk...), symptom
  anomalies (latency, errors), new or surging failure log templates, callers'
  failure logs that name X, and X's recent changes;
* **graph explanation**: faults flow from a dependency to its dependents, so a
  candidate whose transitive dependents include the alerting services and the
  other abnormal entities explains more of the incident;
* **victim discount**: an entity whose own failures point at an abnormal
  dependency (its logs name it, or the dependency has its own resource signal
  and X has none) is more likely a victim than the cause;
* **borrowed evidence**: an entity without telemetry (external API, host) is a
  candidate when its callers name it, or when several of its dependents show
  the same failure signature (a shared host or database);
* **trace attribution** (`trace_attribution`): the span change attributed to X
  itself (its own work, the network or queue into it, errors originating in its
  spans, calls it never answered) is one own-evidence term; a service whose
  spans only pass on a dependency's slowness or errors is that dependency's
  victim;
* the **fault-type signature** of that evidence (`signatures.classify`) and
  team-note hints.

Everything here is pure and deterministic; an LLM may add hypotheses or reorder
within evidence later, never drop a top-ranked one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import networkx as nx

from rootward.context.anomaly import RESOURCE_FAMILIES
from rootward.context.assemble import Context
from rootward.context.log_signals import LogSignal
from rootward.context.topology import Subgraph, upstream_closure
from rootward.domain.hypothesis import Hypothesis
from rootward.engine import log_shift_evidence as shift_term
from rootward.engine.alert_subjects import alert_subjects
from rootward.engine.metric_evidence import (
    FAMILY_FAULTS,
    METRIC_CHANGE_WEIGHT,
    family_signatures,
    metric_change_of,
    metric_change_strengths,
)
from rootward.engine.signals import EntityProfile, entity_profiles, mentions
from rootward.engine.signatures import (
    FRESH_CHANGE_S,
    KIND_HINTS,
    SPECIFICITY,
    Signature,
    classify,
    log_matches,
)
from rootward.engine.silent_dependency import silent_dependency, unexplained
from rootward.engine.specialists.changes import STALE_CHANGE_S
from rootward.engine.trace_attribution import TraceAttribution, attribute_traces
from rootward.worldmodel.graph import EdgeClaim, WorldGraph
from rootward.worldmodel.predict import explain_score

MIN_HYPOTHESES = 3
MAX_HYPOTHESES = 7
VICTIM_FACTOR = 0.35
# A caller whose failures began this soon after a failing dependency's is passing them on.
PROPAGATION_SLACK_S = 60
# A dependency that was failing at least this long before the caller began to: its failure came first.
FAILED_FIRST_S = 30
# Span change attributed to the entity itself: as specific as a resource signal, since the
# attribution has already taken out what it merely passes on.
TRACE_WEIGHT = 0.5
# Weight of the world model's explanation (the likelihood of what is abnormal, given a fault at
# the candidate) against the plain reach coverage. Both read the same graph: measured neutral at
# 0.1 on the golden, Nezha and three simulated sets; 0.25 and more lost golden cases.
WORLD_MODEL_WEIGHT = 0.1
# Faults of a shared resource (host, disk, network, resolver) that show the same way in
# everything on it. "Unreachable", "errors" and "timeouts" are not among them: they say
# something failed, not what.
SHARED_FAULTS = frozenset(
    {"disk_full", "oom_kill", "memory_leak", "cpu_saturation", "packet_loss", "dns_failure", "certificate_expiry"}
)
# What runs on a host also shares its network: slow round trips in two services on one node are
# the node's link, where two callers of one service timing out may be that service being slow.
HOSTED_FAULTS = SHARED_FAULTS | {"network_latency"}


@dataclass
class EntityScore:
    entity: str
    score: float
    own: float
    coverage: float
    victim_of: str | None
    signatures: list[Signature]
    reasons: list[str]


def _borrowed(
    entity: str, profile: EntityProfile, profiles: dict[str, EntityProfile], g: nx.DiGraph
) -> list[LogSignal]:
    """Log evidence an entity gets from others: callers naming it, or dependents sharing a failure signature."""
    borrowed = list(profile.mentions)
    dependents = [d for d in g.predecessors(entity)] if entity in g else []
    sick = [profiles[d] for d in dependents if d in profiles and profiles[d].own_logs]
    hosted = {d for d in dependents if g.edges[d, entity].get("relation") == "runs_on"}
    if len(sick) >= 2:
        own = {p.entity: _lendable(p, p.entity in hosted, profiles) for p in sick}
        by_fault: dict[str, set[str]] = {}
        for who, signals in own.items():
            for fault in signals:
                by_fault.setdefault(fault, set()).add(who)
        shared = {f for f, who in by_fault.items() if len(who) >= 2}
        for p in sick:  # in the dependent's own order, each line once
            lent = [s for f in shared for s in own[p.entity].get(f, [])]
            borrowed += [s for s in p.own_logs if s in lent]
    return borrowed


def _lendable(p: EntityProfile, hosted: bool, profiles: dict[str, EntityProfile]) -> dict[str, list[LogSignal]]:
    """The failure logs of a dependent that may speak for what it depends on, by the fault they match.

    Only faults of a shared resource; for what a host runs, also slow round trips that name no
    other entity: a service timing out on a call it names is that callee's victim, not its node's.
    """
    out = {f: m for f, m in log_matches(p.own_logs).items() if f in SHARED_FAULTS}
    if hosted:
        unnamed = [s for s in p.own_logs if not any(mentions(s, y) for y in profiles if y != p.entity)]
        out.update({f: m for f, m in log_matches(unnamed).items() if f in HOSTED_FAULTS and f not in out})
    return out


def _dependencies_within(g: nx.DiGraph, entity: str, profiles: dict[str, EntityProfile]) -> list[str]:
    """Direct dependencies, and the dependencies of those that have no telemetry of their own
    (a VM between a service and its hypervisor is often invisible)."""
    if entity not in g:
        return []
    direct = list(g.successors(entity))
    hosts = [h for h in nx.descendants(g, entity) if _runs_on_chain(g, entity, h)]
    deeper = hosts + [
        d2
        for d in direct
        if d in profiles and not profiles[d].has_telemetry
        for d2 in g.successors(d)
        if d2 not in direct and d2 != entity
    ]
    return direct + deeper


def _runs_on_chain(g: nx.DiGraph, entity: str, target: str) -> bool:
    """Whether `target` hosts `entity` through runs_on edges only (service -> VM -> hypervisor)."""
    node = entity
    seen = {entity}
    while True:
        hosts = [t for t in g.successors(node) if g.edges[node, t].get("relation") == "runs_on"]
        if not hosts or hosts[0] in seen:
            return False
        node = hosts[0]
        if node == target:
            return True
        seen.add(node)


def _own_change_explains(p: EntityProfile) -> bool:
    matched = log_matches(p.own_logs)
    # Only config: its failure words (credentials, invalid settings) are specific, while
    # "exception" appears in any Java error and cannot tie a failure to a deploy.
    return any(c.kind in ("config", "feature_flag") and "config_error" in matched for c in p.changes)


def _fresh_change(p: EntityProfile) -> bool:
    """A change of its own shortly before (or at) the onset, at an entity showing symptoms."""
    return bool(p.symptoms) and any(c.seconds_before_onset <= FRESH_CHANGE_S for c in p.changes)


# What a caller's failure line can say about the call rather than about itself: "503 Service
# Unavailable", "connection refused", "no healthy upstream" describe something it called. Such a line
# is no mechanism of the caller's own; which dependency it is about is for the victim rule to find.
CALLEE_MECHANISMS = frozenset({"dependency_down"})


def _alerted_right_after_change(p: EntityProfile, alerted: set[str]) -> bool:
    """An alert fires on it and it changed just before: the alert is a symptom its own series may not show yet.

    An alerting rule reads its own window at its own resolution; a snapshot taken as it fires can
    hold too little of the rise for the series to score as an anomaly. The alert says the entity
    is failing, and its own fresh change is then evidence, not background.
    """
    return p.entity in alerted and any(c.seconds_before_onset <= FRESH_CHANGE_S for c in p.changes)


def _passes_on(p: EntityProfile, dp: EntityProfile, own_mechanism: bool, counts_errors: bool) -> bool:
    """Its failures name no mechanism and began with or after a failing dependency's: errors travel up the calls.

    A caller and its callee failing together is one failure seen twice; the callee
    explains the caller, not the other way round, unless the caller changed just
    before or sent the callee a surge of load. A change of its own does not explain
    failures that began after the callee's had: a bad version fails when it rolls
    out, not on cue after a dependency. A caller that counts its errors
    (`counts_errors`) and whose count did not move has no failure to pass on:
    its trouble is of another kind (it got slow), which a dependency's errors
    do not explain. A caller whose failures are calls that timed out passes on a
    dependency that got slow: a timeout is a callee's slowness seen as an error.
    """
    if own_mechanism or any(a.direction == "up" and a.ratio >= 1.5 for a in p.traffic):
        return False
    if counts_errors and not p.own_logs and not any(a.family == "errors" for a in p.symptoms):
        return False
    failing = bool(dp.own_logs) or any(a.family == "errors" for a in dp.symptoms)
    failing = failing or (_timed_out(p) and any(a.family == "latency" for a in dp.symptoms))
    if not failing or dp.onset is None:
        return False
    if _fresh_change(p):
        return p.onset is not None and dp.onset + FAILED_FIRST_S <= p.onset
    return p.onset is None or dp.onset <= p.onset + PROPAGATION_SLACK_S


def _fails_after_a_fresh_change(
    e: str, p: EntityProfile, profiles: dict[str, EntityProfile], ctx: Context
) -> str | None:
    """The dependency right after whose answers its own spans fail, when that one just changed and it did not.

    Errors raised in a caller's own code right after a call (or its calls ending there) read two
    ways: the caller's bug, or an answer it cannot use. One caller alone cannot tell them apart;
    a change of the dependency not long before (`STALE_CHANGE_S`), and none of the caller's, does.
    """
    if any(c.seconds_before_onset <= STALE_CHANGE_S for c in p.changes):
        return None
    for f in ctx.trace_findings:
        if f.caller != e or f.kind not in ("errors_after", "last_call") or not f.up:
            continue
        dp = profiles.get(f.entity)
        if dp is not None and any(0 <= c.seconds_before_onset <= STALE_CHANGE_S for c in dp.changes):
            return f.entity
    return None


def _timed_out(p: EntityProfile) -> bool:
    """Its failure lines say a call did not finish in time (`Read timed out`, `context deadline exceeded`)."""
    return "network_latency" in log_matches(p.own_logs)


def _points_at(profile: EntityProfile, dependency: str) -> bool:
    return any(mentions(s, dependency) for s in profile.own_logs)


def world_graph(topology: Subgraph) -> WorldGraph:
    """The incident's subgraph as a world-model graph (one topology layer), for `explain_score`."""
    graph = WorldGraph()
    since = datetime(1970, 1, 1, tzinfo=UTC)
    for name in topology.entities:
        graph.add_entity(name, topology.kinds.get(name, "unknown"))
    for edge in topology.edges:
        if edge.source == edge.target:
            continue  # a live source's "depends on itself": no edge the world model can hold
        graph.add_claim(edge.source, edge.target, EdgeClaim("topology_file", edge.relation, 0.85, since))
    return graph


def _scope_graph(ctx: Context, profiles: dict[str, EntityProfile]) -> nx.DiGraph:
    """The declared dependency graph; without one, the edges failure logs imply (a caller naming a callee)."""
    g = ctx.topology.graph()
    if not ctx.has_topology:
        # No declared graph: a failure log that names another entity is the best edge we have.
        for e, p in profiles.items():
            for s in p.mentions:
                if s.service != e and s.service in profiles:
                    g.add_edge(s.service, e, relation="depends_on")
    return g


def _reach(
    g: nx.DiGraph, e: str, p: EntityProfile, points: dict[str, set[str]], below: dict[str, set[str]]
) -> set[str]:
    """What a fault at `e` can explain: its dependents (and, under a surge, what it calls)."""
    reach = (upstream_closure(g, e) | {e}) if e in g else {e}
    if any(a.direction == "up" and a.ratio >= 1.5 for a in p.traffic) and e in g:
        # Load flows the other way: a surge at e reaches what e calls.
        reach |= set(nx.descendants(g, e))
    # A dependent whose failure logs name another dependency is explained by that one,
    # unless a fault here could reach it through the named one.
    return {x for x in reach if x == e or not points[x] or any(y == e or e in below[y] for y in points[x])}


def _victim_of(
    e: str,
    p: EntityProfile,
    g: nx.DiGraph,
    profiles: dict[str, EntityProfile],
    borrowed: dict[str, list[LogSignal]],
    incident_onset: int | None,
    b_strength: float,
    counts_errors: bool = False,
) -> str | None:
    """The abnormal dependency whose failure `e` is merely passing on, if any (`counts_errors`: e has error series)."""
    own_mechanism = any(SPECIFICITY.get(f, 1.0) >= 0.9 for f in log_matches(p.own_logs) if f not in CALLEE_MECHANISMS)
    for d in _dependencies_within(g, e, profiles):
        dp = profiles.get(d)
        if dp is None:
            continue
        if _unseen_vendor(g, e, dp) and unexplained(p, incident_onset):
            return d  # symptoms with no cause of its own, calling a third party we cannot see
        d_evidence = dp.abnormal or bool(borrowed[d])
        if not d_evidence:
            continue
        d_res = dp.timely_resource_strength(incident_onset)
        stronger = d_res >= 0.35 and d_res > p.timely_resource_strength(incident_onset) + 0.1
        stronger = stronger and not own_mechanism  # it names its own failure mode: not merely a guest
        if not stronger and _own_change_explains(p):
            continue  # it changed just before and fails the way that change would: its own change explains it
        if _points_at(p, d) or stronger or _passes_on(p, dp, own_mechanism, counts_errors):
            return d
        if _serves_the_failure(p, dp, borrowed[d]):
            return d
        named_here = b_strength >= 0.5  # callers keep naming this entity: it is not just passing a failure on
        d_loud = bool(dp.resources) or sum(x.onset_count for x in dp.own_logs + borrowed[d]) >= 5
        # Quiet beside a loud dependency reads as its victim, unless it changed just before its own
        # symptoms: a fresh deploy or config change is evidence of its own, not silence.
        quiet = not p.resources and not p.own_logs and not _fresh_change(p)
        if quiet and d_loud and not named_here:
            return d
    return None


def _unseen_vendor(g: nx.DiGraph, e: str, dp: EntityProfile) -> bool:
    """Whether `dp` is a third-party API (`kind: external`) that `e` calls directly and that reports nothing.

    Its callers' symptoms are all there is of it. A database or a cache without telemetry is not
    read so: an uninstrumented store is as often its caller's victim as its cause.
    """
    return dp.kind.lower() == "external" and not dp.has_telemetry and g.has_edge(e, dp.entity)


def _serves_the_failure(p: EntityProfile, dp: EntityProfile, lent: list[LogSignal]) -> bool:
    """Whether `p` logs the one failure `dp`'s kind has, as other clients of it do: a resolver's clients
    all failing to resolve names are its victims, whatever names they were resolving."""
    fault = KIND_HINTS.get(dp.kind)
    shared = [s for s in p.own_logs if s in lent]
    return fault is not None and fault in log_matches(shared)


def _signatures(
    ctx: Context,
    g: nx.DiGraph,
    profiles: dict[str, EntityProfile],
    e: str,
    borrowed: list[LogSignal],
    incident_onset: int | None,
    t: TraceAttribution,
) -> list[Signature]:
    """The fault types `e`'s evidence points at (`signatures.classify`), with what stands in for missing series."""
    # A code fault shows as errors; where the entity has no error series of its own,
    # its direct dependents' error rates stand in for it.
    own_error_series = any(x.service == e and x.family == "errors" for x in ctx.series)
    callers = set(g.predecessors(e)) if e in g else set()
    reach_errors = (
        []
        if own_error_series
        else [a for r in callers if r in profiles for a in profiles[r].symptoms if a.family == "errors"]
    )
    return classify(
        profiles[e],
        borrowed,
        onset=incident_onset,
        reach_errors=reach_errors,
        changes_recorded=bool(ctx.changes),
        trace=t.hints,
        latency_watched=any(x.service == e and x.family == "latency" for x in ctx.series),
        alerts=[(a.name, a.evidence) for a in ctx.alerts if a.service == e],
    )


def score_entities(ctx: Context) -> list[EntityScore]:
    profiles = entity_profiles(ctx)
    g = _scope_graph(ctx, profiles)
    alerting = set(alert_subjects(ctx)) or set(profiles)
    alerted = set(ctx.alerting_services)
    abnormal = {e for e, p in profiles.items() if p.abnormal} | alerting
    borrowed = {e: _borrowed(e, p, profiles, g) for e, p in profiles.items()}
    earliest = min((p.onset for p in profiles.values() if p.onset is not None and p.abnormal), default=None)
    incident_onset = int(ctx.window.onset.timestamp()) if ctx.window.onset else None
    points = {
        e: {y for y in profiles if y != e and any(mentions(s, y) for s in p.own_logs)} for e, p in profiles.items()
    }
    below = {e: set(nx.descendants(g, e)) if e in g else set() for e in profiles}
    world = world_graph(ctx.topology) if ctx.has_topology else None
    shifts = shift_term.shifts_by_entity(ctx.log_shifts)  # log template shifts, any level
    traces = attribute_traces(ctx.trace_findings)
    traced_quiet = frozenset(
        e for e, kinds in ctx.telemetry.items() if "traces" in kinds and (e not in traces or traces[e].own <= 0)
    )
    changed = metric_change_strengths(
        ctx, g, {e for e, p in profiles.items() if p.abnormal or borrowed[e]}, unchanged_in_traces=traced_quiet
    )
    edge_refs = {(x.source, x.target): x.evidence for x in ctx.topology.edges}
    error_watched = {x.service for x in ctx.series if x.family == "errors"}
    out: list[EntityScore] = []
    for e, p in profiles.items():
        b = borrowed[e]
        b_strength = min(1.0, sum(s.onset_count for s in b) / 30) if b else 0.0
        t = traces.get(e, TraceAttribution(e))
        own = (
            0.35 * p.symptom_strength
            + 0.5 * p.timely_resource_strength(incident_onset)
            + 0.35 * p.log_strength
            + (0.7 if not p.has_telemetry else 0.45) * b_strength  # the silent can only be named by others
            + (0.15 if p.changes and (p.abnormal or b or t.own > 0 or _alerted_right_after_change(p, alerted)) else 0.0)
            + shift_term.SHIFT_WEIGHT * shift_term.shift_strength(shifts.get(e, []), p.own_logs)
            + TRACE_WEIGHT * t.own
        )
        # Metric change: the robust before/after score of its most-moved series (engine.metric_evidence).
        own += METRIC_CHANGE_WEIGHT * changed.get(e, 0.0)
        silent, silent_sigs = silent_dependency(e, g, profiles, incident_onset, edge_refs) if not b else (0.0, [])
        own += 0.35 * silent  # weighed as symptoms are: it is its callers' symptoms, second-hand
        if own <= 0:
            continue
        reach = _reach(g, e, p, points, below)
        if ctx.has_topology:
            coverage = 0.6 * len(alerting & reach) / len(alerting) + 0.4 * len(abnormal & reach) / len(abnormal)
        else:
            coverage = 1.0  # without a graph nothing can be said about propagation: own evidence decides
        counts_errors = e in error_watched
        victim_of = (
            _victim_of(e, p, g, profiles, borrowed, incident_onset, b_strength, counts_errors)
            or t.victim_of
            or _fails_after_a_fresh_change(e, p, profiles, ctx)
        )
        reasons = [f"own evidence {own:.2f}", f"explains {coverage:.0%} of the abnormal graph"] + t.reasons
        if world is not None and world.has_entity(e):
            likelihood = explain_score(world, e, abnormal)
            coverage = (1.0 - WORLD_MODEL_WEIGHT) * coverage + WORLD_MODEL_WEIGHT * likelihood
            reasons.append(f"the world model gives what is abnormal a likelihood of {likelihood:.2f} from here")
        score = own * (0.3 + 0.7 * coverage)
        if victim_of is not None:
            score *= VICTIM_FACTOR
            reasons.append(f"its failures point at its dependency {victim_of}")
        if earliest is not None and p.onset is not None and p.onset <= earliest + 30:
            score *= 1.1
            reasons.append("earliest onset")
        sigs = _signatures(ctx, g, profiles, e, b, incident_onset, t)
        deployed = any(c.kind == "deploy" for c in p.changes) if ctx.changes else None
        sigs = shift_term.with_shift_signatures(sigs, shifts.get(e, []), p.own_logs, deploy_recorded=deployed)
        if not sigs and (change := metric_change_of(ctx, e)) is not None:
            sigs = family_signatures(change)
        sigs = sigs or silent_sigs
        out.append(EntityScore(e, score, own, coverage, victim_of, sigs, reasons))
    out.sort(key=lambda s: (-s.score, s.entity))
    return out


def _alternatives(
    ctx: Context, scores: list[EntityScore], taken: set[tuple[str, str]], needed: int
) -> list[tuple[float, str, Signature, EntityScore]]:
    """Fill up to the minimum with the usual other explanations of what moved at the leading entities.

    Latency that rose can be delay on the path, saturation or a slow new version;
    errors can be a bad version or a dependency that went away. These keep a
    plausible second reading in the top three when the evidence is thin.
    """
    out: list[tuple[float, str, Signature, EntityScore]] = []
    for es in scores[:3]:
        fams = {a.family for a in ctx.anomalies if a.service == es.entity}
        if fams and fams <= RESOURCE_FAMILIES:
            continue  # a disk that filled or a CPU that climbed reads as itself: its signatures said what it is
        options: list[str] = []
        if "latency" in fams:
            options += ["network_latency", "deploy_regression", "cpu_saturation"]
        if "errors" in fams:
            options += ["deploy_regression", "dependency_down"]
        options += ["deploy_regression", "network_latency", "dependency_down"]
        refs = [a.evidence for a in ctx.anomalies if a.service == es.entity][:2]
        for rank, fault in enumerate(dict.fromkeys(options)):
            if (es.entity, fault) in taken or len(out) >= needed:
                continue
            taken.add((es.entity, fault))
            sig = Signature(fault, 0.0, list(refs), ["an alternative reading of the same signals"])
            out.append((es.score * 0.3 / (rank + 1), es.entity, sig, es))
        if len(out) >= needed:
            break
    return out


ALERT_FAMILY_FAULTS = FAMILY_FAULTS


def _from_alerts(ctx: Context, limit: int) -> list[Hypothesis]:
    """With no data beyond the alerts, the alerts themselves: each alerting service, read by its alert's name.

    Low priors; the specialists will find nothing to validate them, so the result
    is inconclusive with every missing source named, which is the honest answer.
    """
    from rootward.context.anomaly import family_of

    out: list[Hypothesis] = []
    for alert in ctx.alerts:
        fault = ALERT_FAMILY_FAULTS.get(family_of(alert.name), "dependency_down")
        if any(h.entity == alert.service and h.fault_type == fault for h in out) or len(out) >= limit:
            continue
        out.append(
            Hypothesis(
                f"H{len(out) + 1}",
                alert.service,
                fault,
                round(0.1 / (len(out) + 1), 4),
                [alert.evidence],
                ["only the alert is known about it"],
            )
        )
    return out


def rank_hypotheses(ctx: Context, limit: int = MAX_HYPOTHESES) -> list[Hypothesis]:
    """3-7 hypotheses, best first, deterministic for the same context."""
    scores = score_entities(ctx)
    candidates: list[tuple[float, str, Signature, EntityScore]] = []
    for rank, es in enumerate(scores[:5]):
        if not es.signatures:
            continue  # nothing it showed reads as any fault (a host whose CPU fell): no suspect
        sigs = es.signatures
        top = sigs[0].score or 1.0
        for i, sig in enumerate(sigs[:3]):
            rel = sig.score / top
            prior = es.score * (1.0 if i == 0 else 0.6 * rel)
            candidates.append((prior, es.entity, sig, es))
        del rank
    candidates.sort(key=lambda c: (-c[0], c[1], c[2].fault_type))
    if not candidates:
        return _from_alerts(ctx, limit)
    if len(candidates) < MIN_HYPOTHESES and scores:
        candidates += _alternatives(
            ctx, scores, {(c[1], c[2].fault_type) for c in candidates}, MIN_HYPOTHESES - len(candidates)
        )
    total = sum(c[0] for c in candidates[:limit]) or 1.0
    out: list[Hypothesis] = []
    for prior, entity, sig, es in candidates[:limit]:
        out.append(
            Hypothesis(
                id=f"H{len(out) + 1}",
                entity=entity,
                fault_type=sig.fault_type,
                prior=round(prior / total, 4),
                evidence=list(sig.evidence),
                rationale=es.reasons + sig.reasons,
            )
        )
    return out
