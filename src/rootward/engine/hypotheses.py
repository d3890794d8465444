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
from rootward.context.trace_evidence import MIN_CALLS
from rootward.domain.hypothesis import Hypothesis
from rootward.engine import log_shift_evidence as shift_term
from rootward.engine.alert_subjects import alert_subjects
from rootward.engine.host_network import attributed_traces
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
    SPECIFICITY,
    SURGE_RATIO,
    Signature,
    alert_faults,
    classify,
    faults_named,
)
from rootward.engine.silent_dependency import silent_dependency, waits_on_a_shared_store
from rootward.engine.starved_callers import starved_callers
from rootward.engine.tail_latency import erratic, tail_only
from rootward.engine.trace_attribution import TraceAttribution
from rootward.engine.unmapped_victims import UnmappedCauses, timed_out_on, unmapped_causes, unmapped_victim_of
from rootward.engine.victims import (
    fails_after_a_fresh_change,
    fails_on_changed_answers,
    fed_by_a_surge,
    victim_of_dependency,
    waits_on_a_vendor,
)
from rootward.worldmodel.graph import EdgeClaim, WorldGraph
from rootward.worldmodel.predict import explain_score

MIN_HYPOTHESES = 3
MAX_HYPOTHESES = 7
VICTIM_FACTOR = 0.35
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


# An entity's onset is read from samples: this many steps (and never less than LATE_GRACE_S) after the
# last alert, it may still be what set the alert off (`_fired_before`).
LATE_GRACE_STEPS = 2
LATE_GRACE_S = 120


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
    """Log evidence an entity gets from others: callers naming it, dependents stating the mechanism its
    own alert is named for (a client failing to validate the certificate whose probe fired on it), or
    dependents sharing a failure signature."""
    borrowed = list(profile.mentions)
    dependents = [d for d in g.predecessors(entity)] if entity in g else []
    if profile.alert_faults:
        stating = [s for d in dependents if d in profiles for s in profiles[d].own_logs]
        borrowed += [s for s in stating if s not in borrowed and profile.alert_faults & set(faults_named(s.template))]
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
    A line speaks only for the most specific of these it names: "slow request ... cpu_throttled"
    says why it was slow, and is no slow round trip to share with a neighbour timing out.
    """
    out: dict[str, list[LogSignal]] = {}
    for s in p.own_logs:
        named = [f for f in faults_named(s.template) if f in SHARED_FAULTS]
        if hosted and not any(mentions(s, y, q.aliases) for y, q in profiles.items() if y != p.entity):
            named += [f for f in faults_named(s.template) if f in HOSTED_FAULTS and f not in named]
        if named:
            out.setdefault(max(named, key=lambda f: (SPECIFICITY.get(f, 1.0), f)), []).append(s)
    return out


def _alerted_right_after_change(p: EntityProfile, alerted: set[str]) -> bool:
    """An alert fires on it and it changed just before: the alert is a symptom its own series may not show yet.

    An alerting rule reads its own window at its own resolution; a snapshot taken as it fires can
    hold too little of the rise for the series to score as an anomaly. The alert says the entity
    is failing, and its own fresh change is then evidence, not background.
    """
    return p.entity in alerted and any(c.seconds_before_onset <= FRESH_CHANGE_S for c in p.changes)


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
    if any(a.direction == "up" and a.ratio >= SURGE_RATIO for a in p.traffic) and e in g:
        # Load flows the other way: a surge at e reaches what e calls.
        reach |= set(nx.descendants(g, e))
    # A dependent whose failure logs name another dependency is explained by that one,
    # unless a fault here could reach it through the named one.
    return {x for x in reach if x == e or not points[x] or any(y == e or e in below[y] for y in points[x])}


def _fired_before(e: str, p: EntityProfile, ctx: Context) -> set[str]:
    """The alerting entities `e` cannot have set off: every alert had fired before anything of it moved.

    A cause comes before the alert it explains. Its onset is read from samples and may be a
    step or two late (`LATE_GRACE_STEPS`, never under `LATE_GRACE_S`); an entity whose series
    first moved later still, after the group's last alert, is the next event or an aftermath,
    however well the map lets it reach the alerting entities. Its own alert stays its own.
    Series only: a watched series was seen quiet until it moved, where a log line may be the
    end of what began earlier unseen (the kill at the end of a leak).
    """
    if p.onset is None or not (p.symptoms or p.resources):
        return set()
    grace = max(LATE_GRACE_S, LATE_GRACE_STEPS * ctx.sample_step_s)
    if p.onset <= ctx.window.alerted_by.timestamp() + grace:
        return set()
    return {a.service for a in ctx.alerts if a.service != e}


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
        changes_recorded=any(not c.from_logs for c in ctx.changes),
        trace=t.hints,
        latency_watched=any(x.service == e and x.family == "latency" for x in ctx.series),
        alerts=[(a.name, a.evidence) for a in ctx.alerts if a.service == e],
    )


def _network_clear(ctx: Context) -> set[str]:
    """Entities whose spans measured the wait around the calls into them, on enough calls after the onset,
    and it did not grow, pooled or from any caller: a delay on their network would have lengthened exactly that."""
    measured = {f.entity for f in ctx.trace_findings if f.kind == "network_in" and f.n_after >= MIN_CALLS}
    waited = {f.entity for f in ctx.trace_findings if f.kind in ("network_in", "network") and f.up}
    return measured - waited


def _quiet_in_traces(ctx: Context, traces: dict[str, TraceAttribution]) -> frozenset[str]:
    """Entities whose spans are there and show no change of their own."""
    return frozenset(
        e for e, kinds in ctx.telemetry.items() if "traces" in kinds and (e not in traces or traces[e].own <= 0)
    )


def _named_in_own_logs(profiles: dict[str, EntityProfile]) -> dict[str, set[str]]:
    """Per entity, the others its own failure lines name."""
    return {
        e: {y for y, q in profiles.items() if y != e and any(mentions(s, y, q.aliases) for s in p.own_logs)}
        for e, p in profiles.items()
    }


def _coverage(ctx: Context, alerting: set[str], abnormal: set[str], reach: set[str]) -> float:
    """The share of the alerting and the abnormal an entity's faults reach; without a graph, all of it
    (nothing can be said about propagation: own evidence decides)."""
    if not ctx.has_topology:
        return 1.0
    return 0.6 * len(alerting & reach) / len(alerting) + 0.4 * len(abnormal & reach) / len(abnormal)


def _onset_reached(
    e: str, g: nx.DiGraph, profiles: dict[str, EntityProfile], incident_onset: int | None, mapped: bool
) -> int | None:
    """When what `e`'s fault can reach began to fail: the onset a change of its own is late against.

    The incident's onset is its first strong change anywhere; a step minutes earlier at an
    entity `e` cannot reach (a neighbour's latency blip) would make `e`'s own CPU rise read
    as an aftermath of something it could not have caused. With a map, what counts is the
    first failure of `e` or of what depends on it, never before the incident's onset; without
    one, nothing says what it reaches. Series only: a log template's first line may be background
    that happened to be written again.
    """
    if incident_onset is None or not mapped or e not in g:
        return incident_onset
    reached = [profiles[x] for x in {e} | nx.ancestors(g, e) if x in profiles]
    onsets = [a.onset for p in reached for a in p.symptoms + p.resources]
    return max(incident_onset, min(onsets)) if onsets else incident_onset


def _with_readings(profiles: dict[str, EntityProfile], ctx: Context) -> dict[str, EntityProfile]:
    """Each profile with the mechanisms the alerts firing on it are named for (`signatures.alert_faults`),
    whether its spans clear its network (`_network_clear`), whether only its tail slowed (`tail_only`) or its
    latency turned erratic (`erratic`)."""
    for a in ctx.alerts:
        if a.service in profiles:
            profiles[a.service].alert_faults |= frozenset(alert_faults(a.name))
    for e in _network_clear(ctx) & set(profiles):
        profiles[e].network_clear = True
    for e in tail_only(ctx.series) & set(profiles):
        profiles[e].tail_only = True
    for e in erratic(ctx.series) & set(profiles):
        profiles[e].erratic = True
    return profiles


def score_entities(ctx: Context) -> list[EntityScore]:
    profiles = _with_readings(entity_profiles(ctx), ctx)
    g = _scope_graph(ctx, profiles)
    alerting = set(alert_subjects(ctx)) or set(profiles)
    alerted = set(ctx.alerting_services)
    abnormal = {e for e, p in profiles.items() if p.abnormal} | alerting
    borrowed = {e: _borrowed(e, p, profiles, g) for e, p in profiles.items()}
    earliest = min((p.onset for p in profiles.values() if p.onset is not None and p.abnormal), default=None)
    incident_onset = int(ctx.window.onset.timestamp()) if ctx.window.onset else None
    points = _named_in_own_logs(profiles)
    below = {e: set(nx.descendants(g, e)) if e in g else set() for e in profiles}
    world = world_graph(ctx.topology) if ctx.has_topology else None
    shifts = shift_term.shifts_by_entity(ctx.log_shifts)  # log template shifts, any level
    traces = attributed_traces(ctx)
    changed = metric_change_strengths(
        ctx, g, {e for e, p in profiles.items() if p.abnormal or borrowed[e]}, _quiet_in_traces(ctx, traces)
    )
    edge_refs = {(x.source, x.target): x.evidence for x in ctx.topology.edges}
    unmapped = UnmappedCauses() if ctx.has_topology else unmapped_causes(profiles, incident_onset)
    err_series = {x.service for x in ctx.series if x.family == "errors"}  # who has an error series
    out: list[EntityScore] = []
    starved_callers(traces, profiles, incident_onset, ctx.trace_findings)
    span_tied = {e: t.victim_of for e, t in traces.items() if t.victim_of}
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
        coverage = _coverage(ctx, alerting, abnormal, _reach(g, e, p, points, below) - _fired_before(e, p, ctx))
        spans_say = (t.own > 0, t.unharmed_callees, t.slowed_callees, t.waited_for)  # of it and its calls
        fresh_callee = fails_after_a_fresh_change(e, p, profiles, ctx)  # its spans fail on a callee just changed
        answers = fails_on_changed_answers(e, p, g, traces)  # or on a callee's answers that took other paths
        unseen = _waits_on_the_unseen(e, p, g, profiles, incident_onset, unmapped, t.own > 0)
        if (tied := fresh_callee or unseen or answers) is not None:
            span_tied.setdefault(e, tied)
        victim_of = (
            victim_of_dependency(e, p, g, profiles, borrowed, incident_onset, b_strength, e in err_series, *spans_say)
            or t.victim_of
            or fresh_callee
            or answers
            or fed_by_a_surge(e, p, g, profiles, ctx.sample_step_s)
            or unmapped_victim_of(e, p, unmapped, traced_own=t.own > 0)
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
        sigs = _signatures(ctx, g, profiles, e, b, _onset_reached(e, g, profiles, incident_onset, ctx.has_topology), t)
        recorded = any(not c.from_logs for c in ctx.changes)
        deployed = any(c.kind == "deploy" for c in p.changes) if recorded else None
        sigs = shift_term.with_shift_signatures(sigs, shifts.get(e, []), p.own_logs, deploy_recorded=deployed)
        if not sigs and (change := metric_change_of(ctx, e)) is not None:
            sigs = family_signatures(change)
        sigs = sigs or silent_sigs
        out.append(EntityScore(e, score, own, coverage, victim_of, sigs, reasons))
    rank_below_causes(out, span_tied)
    out.sort(key=lambda s: (-s.score, s.entity))
    return out


def _waits_on_the_unseen(
    e: str,
    p: EntityProfile,
    g: nx.DiGraph,
    profiles: dict[str, EntityProfile],
    onset: int | None,
    unmapped: UnmappedCauses,
    traced_own: bool,
) -> str | None:
    """What `e` only passes on of something that reports nothing: a vendor it calls, a store all its
    callers wait on, or a cause it timed out on that has no place on the map."""
    return (
        waits_on_a_vendor(e, p, g, profiles, onset)
        or waits_on_a_shared_store(e, g, profiles, onset)
        or timed_out_on(e, p, unmapped, traced_own=traced_own)
    )


def rank_below_causes(scores: list[EntityScore], traced: dict[str, str]) -> None:
    """A service whose trouble the spans show coming from one callee ranks below that callee.

    The spans tie its symptoms to the callee's: time or failures spent in calls to it, or
    errors raised right after its changed answers (or, with no cause of its own, it waits
    on one unseen vendor: `victims.waits_on_a_vendor`). Everything it shows is then the callee's
    fault seen again, and the louder it is, the more of that it shows: a discount alone lets
    a loud victim outrank a quiet cause. It stays a victim's share of the cause below it, not
    just under it: the specialists then find more to validate at the louder one, and a victim
    a hair under its cause came out on top.

    For the same reason the cause is at least as strong as the victim would be on its own
    evidence (its score before the victim's discount): a quiet cause with a loud victim
    otherwise lost first place to an unrelated move elsewhere (a database's memory step) that
    outscored the cause but not the victim. Only a cause that is no one's victim itself takes
    it: in a chain the strength belongs at the end, not at a link.
    """
    by_entity = {s.entity: s for s in scores}
    ties = [
        (s, cause)
        for s in scores
        if (cause := by_entity.get(traced.get(s.entity, ""))) is not None and s.victim_of == cause.entity
    ]
    below = "ranked below {}, whose answers its spans show it suffering"
    for victim, cause in ties:
        if cause.victim_of is None and victim.score / VICTIM_FACTOR > cause.score:
            cause.score = victim.score / VICTIM_FACTOR  # the victim is now a victim's share of it
            cause.reasons.append(f"as strong as {victim.entity}'s symptoms, which its spans tie to it")
            victim.reasons.append(below.format(cause.entity))
        elif victim.score > cause.score * VICTIM_FACTOR:
            victim.score = cause.score * VICTIM_FACTOR
            victim.reasons.append(below.format(cause.entity))


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
                victim_of=es.victim_of,
            )
        )
    return out
