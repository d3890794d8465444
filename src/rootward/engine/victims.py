"""Victims: which abnormal dependency an entity's trouble is merely passed on from.

A caller and its callee failing together is one failure seen twice, and the
ranker (`engine/hypotheses.py`) discounts the one passing it on. An entity is a
dependency's victim when its failure lines name that dependency; when the
dependency has a clearly stronger resource signal; when its failures name no
mechanism of its own and began with or after the dependency's (errors travel up
the calls; timeouts are a slow callee seen as errors); when it is a client of a
resolver failing the way every client does; when it has symptoms and no cause
of its own beside a third party that reports nothing; or when its own spans fail
right after the answers of a dependency that changed shortly before while it
did not, or whose code took other paths while its own did not. Pure functions over
the entity profiles (`engine/signals.py`) and the trace attribution.
"""

from __future__ import annotations

import networkx as nx

from rootward.context.anomaly import Anomaly
from rootward.context.assemble import Context
from rootward.context.log_signals import LogSignal
from rootward.engine.signals import MIN_BLAME_LINES, EntityProfile, mentions
from rootward.engine.signatures import (
    FRESH_CHANGE_S,
    KIND_HINTS,
    LOAD_FOLLOWING_MEMORY,
    SPECIFICITY,
    SURGE_RATIO,
    log_matches,
)
from rootward.engine.silent_dependency import unexplained, waits_on_a_shared_store
from rootward.engine.specialists.changes import STALE_CHANGE_S
from rootward.engine.trace_attribution import TraceAttribution

# A caller whose failures began this soon after a failing dependency's is passing them on.
PROPAGATION_SLACK_S = 60
# A dependency that was failing at least this long before the caller began to: its failure came first.
FAILED_FIRST_S = 30

# A callee's surge no more than this many times its caller's came over the calls: the callee adds none of its own.
PASSED_ON_SURGE = 1.25

# Shapes of a slowdown that holds: a callee slow now and then makes no caller time out on cue.
HELD = frozenset({"step", "ramp"})
# A caller's latency rise within this share over its callee's is the callee's rise seen again (`_slowed_as_much`).
ADDED_SLACK = 0.1

# What a caller's failure line can say about the call rather than about itself: "503 Service
# Unavailable", "connection refused", "no healthy upstream" describe something it called, and so does
# "connection reset by peer" (a process killed resets every connection open to it). Such a line is no
# mechanism of the caller's own; which dependency it is about, if any, is for the victim rule to find.
CALLEE_MECHANISMS = frozenset({"dependency_down", "packet_loss"})
# A dependency's resource change counts as loud beside a quiet caller from this strength (a robust z
# of 4 near the onset; a step long before it needs more): enough to have starved the caller.
LOUD_RESOURCE = 0.2
# What a process's own lines say when it died: down until it restarts, whatever its clients then see.
PROCESS_DIED = frozenset({"oom_kill", "crash_loop"})


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


def _passes_on(
    p: EntityProfile, dp: EntityProfile, own_mechanism: bool, counts_errors: bool, traced_own: bool = False
) -> bool:
    """Its failures name no mechanism and began with or after a failing dependency's: errors travel up the calls.

    A caller and its callee failing together is one failure seen twice; the callee
    explains the caller, not the other way round, unless the caller changed just
    before or sent the callee a surge of load. A change of its own does not explain
    failures that began after the callee's had: a bad version fails when it rolls
    out, not on cue after a dependency. A caller that counts its errors
    (`counts_errors`) and whose count did not move has no failure to pass on:
    its trouble is of another kind (it got slow), which a dependency's errors
    do not explain, only a dependency that got slow by as much at the same time
    (`_slowed_as_much`; a dependency that merely slowed first may have slowed
    less). A caller whose failures are calls that timed out passes on a
    dependency that got slow: a timeout is a callee's slowness seen as an error.
    So does a caller with no lines at all whose symptoms began clearly after a
    dependency got slow and stayed so (`_slowed_first`: without lines, the order
    says it), and one whose lines say a callee did not answer, when a dependency
    serves fewer requests since (`_unanswered_by`), even one that logs nothing. A
    dependency's line or two does not account for a caller whose error series rose, nor for
    one that shows nothing itself (what its clients say failed at it is its own). One
    with no failure or symptom at all whose spans show a change of its own
    (`traced_own`) has nothing to pass on: that change is its own.
    """
    if own_mechanism or any(a.direction == "up" and a.ratio >= SURGE_RATIO for a in p.traffic):
        return False
    if traced_own and not p.own_logs and not p.symptoms:
        return False
    # It counts its errors and the count did not move: its trouble is that it got slow, which only a
    # dependency that got as slow explains (its errors would not).
    only_slow = counts_errors and not p.own_logs and not _errors_rose(p)
    # Failing now: a failure line since the onset (one that stopped before it was an earlier event's);
    # but a line or two there cannot account for an error series rising here.
    lines = any(s.onset_count > 0 for s in dp.own_logs)
    # Nor can they account for what its clients say failed at it when it shows nothing itself.
    shows = bool(p.symptoms or p.own_logs)
    lines = lines and (_clearly_failing(dp) or (shows and not _errors_rose(p)))
    failing = lines or any(a.family == "errors" for a in dp.symptoms)
    # Its lines say a callee did not answer ("503 Service Unavailable", "connection refused"), and
    # this one serves fewer requests since: a process down or restarting answers nobody.
    failing = failing or _unanswered_by(p, dp)
    slowed = dp.onset is not None and any(a.family == "latency" for a in dp.symptoms)
    if only_slow:
        failing = slowed and _slowed_as_much(p, dp)
    else:
        failing = failing or (slowed and _timed_out(p))
        failing = failing or (slowed and not p.own_logs and (_slowed_first(p, dp) or _slowed_as_much(p, dp)))
    if not failing or dp.onset is None:
        return False
    if _fresh_change(p):
        return p.onset is not None and dp.onset + FAILED_FIRST_S <= p.onset
    # Lines first seen as the log source came back from a hole may have begun in it: by then, not then.
    began = dp.onset if dp.unseen_since is None else min(dp.onset, dp.unseen_since)
    return p.onset is None or began <= p.onset + PROPAGATION_SLACK_S


def _slowed_first(p: EntityProfile, dp: EntityProfile) -> bool:
    """Whether the dependency got slow and stayed so, clearly before any of `p`'s symptoms began."""
    first = min((a.onset for a in dp.symptoms if a.family == "latency" and a.shape in HELD), default=None)
    return first is not None and p.onset is not None and first + FAILED_FIRST_S <= p.onset


def _slowed_as_much(p: EntityProfile, dp: EntityProfile) -> bool:
    """Whether the dependency's latency rose and held, no later than `p`'s, by at least as much as `p`'s did.

    A caller waits for its callee: the time a callee's answers took more is added to every
    call the caller makes to it, and a caller with a delay of its own adds more on top. So a
    caller whose latency rose by no more than its callee's, measured the same way (the same
    series name), at the same moment, shows nothing the callee does not account for: the order
    of their onsets (`_slowed_first`) cannot tell them apart when both moved in one sample.
    """
    if _errors_rose(p):
        return False  # its errors are more than a wait: a slow callee explains them only by timeouts it logs
    theirs = {a.metric: a for a in dp.symptoms if a.family == "latency" and a.direction == "up" and a.shape in HELD}
    shared = [(a, theirs[a.metric]) for a in p.symptoms if a.family == "latency" and a.metric in theirs]
    return bool(shared) and all(
        d.onset <= a.onset and _risen_by(a) <= _risen_by(d) * (1 + ADDED_SLACK) for a, d in shared
    )


def _risen_by(a: Anomaly) -> float:
    """How far a held move went: to the level it reached (`Anomaly.level`), read at the same moments for
    caller and callee. Their post-onset medians start at each one's own change point: scraped through a
    rate window, a step climbs over a few samples, and a median taken a sample earlier sits lower on it."""
    return (a.level if a.level is not None else a.after) - a.baseline


def _unanswered_by(p: EntityProfile, dp: EntityProfile) -> bool:
    """Its lines say a callee did not answer, and `dp` has served fewer requests since."""
    says = any(f in CALLEE_MECHANISMS for f in log_matches(p.own_logs))
    return says and any(a.direction == "down" for a in dp.traffic)


def _errors_rose(p: EntityProfile) -> bool:
    return any(a.family == "errors" for a in p.symptoms)


def _clearly_failing(dp: EntityProfile) -> bool:
    """Failure lines repeated since the onset (one retry says little), a line saying it was killed or
    crashed (a process killed is down until it restarts), or an error series that rose."""
    lines = sum(s.onset_count for s in dp.own_logs) >= MIN_BLAME_LINES
    died = bool(PROCESS_DIED & set(log_matches([s for s in dp.own_logs if s.onset_count > 0])))
    return lines or died or any(a.family == "errors" for a in dp.symptoms)


def fails_after_a_fresh_change(
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


def fails_on_changed_answers(
    e: str, p: EntityProfile, g: nx.DiGraph, traced: dict[str, TraceAttribution]
) -> str | None:
    """The dependency whose code took other paths at the onset, when `e` only logs failures that name nothing.

    A wrong return value changes what a service answers, and its callers fail on it: they
    log a failure of their own code that names neither a mechanism nor the sender. The
    spans then show the callee's calls logging other lines (or running other operations)
    while nothing of the caller's own work changed. Read so only when the caller's lines
    name no mechanism of its own and it did not change shortly before: its own new version
    may ask the callee something else. Unless another caller failed on the callee's answers
    off its path too, as this one did (`TraceAttribution.failed_on_by`): its version asked
    the other caller nothing.
    """
    if not p.own_logs or _own_mechanism(p):
        return None
    mine = traced.get(e)
    if mine is not None and mine.work > 0:
        return None
    changed_itself = any(c.seconds_before_onset <= STALE_CHANGE_S for c in p.changes)
    changed = [
        d
        for d in (g.successors(e) if e in g else ())
        if (t := traced.get(d)) is not None
        and t.other_paths
        and t.victim_of is None
        and (not changed_itself or (e in t.failed_on_by and t.failed_on_by - {e}))
    ]
    return max(changed, key=lambda d: (traced[d].own, d), default=None)


def _own_mechanism(p: EntityProfile) -> bool:
    """Its failure lines name a mechanism of its own (not only what came back from a call)."""
    return any(SPECIFICITY.get(f, 1.0) >= 0.9 for f in log_matches(p.own_logs) if f not in CALLEE_MECHANISMS)


def _timed_out(p: EntityProfile) -> bool:
    """Its failure lines say a call did not finish in time (`Read timed out`, `context deadline exceeded`)."""
    return "network_latency" in log_matches(p.own_logs)


def _states_its_alert(p: EntityProfile, dp: EntityProfile) -> bool:
    """Whether `p`'s failure lines state a mechanism an alert firing on `dp` is named for.

    A client that cannot validate a certificate (`SSLHandshakeException: ... validity check
    failed`) is seeing the certificate the server presented; when that server's own TLS probe
    fires (`ProbeSSLCertExpired`), it is one failure seen from both ends, and it is the
    server's. Lines seldom say which server they called; the alert says which one failed so.
    """
    return bool(dp.alert_faults) and any(f in dp.alert_faults for f in log_matches(p.own_logs))


def _points_at(profile: EntityProfile, dependency: EntityProfile) -> bool:
    return any(mentions(s, dependency.entity, dependency.aliases) for s in profile.own_logs)


def could_starve(p: EntityProfile, onset: int | None) -> bool:
    """Whether `p`'s resources moved in a way that can starve what depends on it: near the onset
    (`LOUD_RESOURCE` of `timely_resource_strength`; a step long before it needs more), and not a
    memory step that killed nothing (memory follows load and starves no one until it kills)."""
    killed = "oom_kill" in log_matches(p.own_logs)
    return p.timely_resource_strength(onset, memory_step_share=1.0 if killed else 0.0) >= LOUD_RESOURCE


def victim_of_dependency(
    e: str,
    p: EntityProfile,
    g: nx.DiGraph,
    profiles: dict[str, EntityProfile],
    borrowed: dict[str, list[LogSignal]],
    incident_onset: int | None,
    b_strength: float,
    counts_errors: bool = False,
    traced_own: bool = False,
    unharmed_calls: frozenset[str] = frozenset(),
    slowed_calls: frozenset[str] = frozenset(),
    waited_for: bool = False,
) -> str | None:
    """The abnormal dependency whose failure `e` is merely passing on, if any.

    `counts_errors`: e has error series; `traced_own`: the spans attribute a change to e itself
    (its own work, its code paths, errors originating in it), which is evidence of its own;
    `unharmed_calls`: dependencies whose calls from e the spans timed after the onset, unchanged
    (failures included). With a change of e's own in its spans, such a dependency that barely
    failed (a retry line or two, no error series) is not what e passes on: nothing came over the
    calls. Spans can miss what failed (sampled traces, a client that never connected writes no
    span), so they clear neither a dependency clearly failing nor a caller with no change of its own.
    `slowed_calls`: dependencies whose calls from e got slower in the spans; a caller whose failure
    lines say its calls timed out, with no change of its own there, is such a dependency's victim
    even when the dependency's own series did not move (a delay on its network slows the calls,
    not its own work). `waited_for`: calls into e spent longer outside its spans, which
    nothing e calls can cause (its own network, or a queue in front of it), so its symptoms are
    not explained away by a third party it calls.
    """
    own_mechanism = _own_mechanism(p)
    for d in _dependencies_within(g, e, profiles):
        dp = profiles.get(d)
        if dp is None or (traced_own and d in unharmed_calls and not _clearly_failing(dp)):
            continue  # its spans show a change of its own, nothing came over its calls to d, and d barely failed
        if _states_its_alert(p, dp):
            return d  # its lines state the mechanism the dependency's own alert is named for
        if d in slowed_calls and _timed_out(p) and not own_mechanism and not traced_own:
            return d  # it says its calls timed out, and the spans show its calls to d slower
        if _unseen_vendor(g, e, dp) and unexplained(p, incident_onset) and not waited_for:
            return d  # symptoms with no cause of its own, calling a third party we cannot see
        if not waited_for and waits_on_a_shared_store(e, g, profiles, incident_onset) == d:
            return d  # as all the other callers of an unwatched store it calls, with nothing else abnormal
        d_evidence = dp.abnormal or bool(borrowed[d]) or _unanswered_by(p, dp)
        if not d_evidence:
            continue
        # What could starve e: a memory step follows load and starves no one, unless it ended in a kill.
        killed = "oom_kill" in log_matches(dp.own_logs)
        d_res = dp.timely_resource_strength(incident_onset, memory_step_share=1.0 if killed else LOAD_FOLLOWING_MEMORY)
        stronger = d_res >= 0.35 and d_res > p.timely_resource_strength(incident_onset) + 0.1
        stronger = stronger and not own_mechanism  # it names its own failure mode: not merely a guest
        if not stronger and _own_change_explains(p):
            continue  # it changed just before and fails the way that change would: its own change explains it
        if _points_at(p, dp) or stronger or _passes_on(p, dp, own_mechanism, counts_errors, traced_own):
            return d
        if _serves_the_failure(p, dp, borrowed[d]):
            return d
        named_here = b_strength >= 0.5  # callers keep naming this entity: it is not just passing a failure on
        # Loud: a resource change that could have starved e (`could_starve`), or its own failure lines.
        d_loud = could_starve(dp, incident_onset) or sum(x.onset_count for x in dp.own_logs + borrowed[d]) >= 5
        # Quiet beside a loud dependency reads as its victim, unless it changed just before its own
        # symptoms (a fresh deploy or config change is evidence of its own, not silence), or its
        # spans show a change of its own (a wrong answer is quiet everywhere else).
        quiet = not p.resources and not p.own_logs and not _fresh_change(p) and not traced_own
        if quiet and d_loud and not named_here:
            return d
    return None


def fed_by_a_surge(
    e: str, p: EntityProfile, g: nx.DiGraph, profiles: dict[str, EntityProfile], step_s: int = 0
) -> str | None:
    """The caller whose surge of requests `e` is only passing on, if any.

    Load flows down the calls: extra requests arriving at a service reach everything
    it calls, and each of those sees its own request rate rise with it (less where it
    has other callers), at once: a request is passed on in moments. A callee whose rate
    rose with a caller's surge (within `PROPAGATION_SLACK_S` of it either way, or one
    sampling step `step_s` where samples are further apart; a surge minutes apart is
    another load), by no more than that caller's rise accounts for (`PASSED_ON_SURGE`),
    and with no change of its own got the surge over the calls: the service where it
    arrived is the cause, and the callee's slowness under the load a symptom of it.
    The surge may be further up: callers in between whose own rates rose at that moment,
    each by less than a surge once their other callers dilute it, carried it down to `e`
    (the nearest surge up such a chain is the one named). Retries do not read so: a
    caller retrying a failing callee sends more calls, but its own request rate does not rise.
    """
    mine = _rise(p)
    if mine is None or p.changes or e not in g or _own_mechanism(p):
        return None
    slack = max(PROPAGATION_SLACK_S, step_s)
    seen, frontier = {e}, [e]
    while frontier:
        fed: list[tuple[float, str]] = []
        carriers: list[str] = []
        for callee in frontier:
            for c in _callers(g, callee, profiles):
                if c in seen:
                    continue
                seen.add(c)
                theirs = _rise(profiles[c])
                if theirs is None or abs(theirs.onset - mine.onset) > slack:
                    continue
                surge = _surge(profiles[c])
                if surge is not None and mine.ratio <= PASSED_ON_SURGE * surge.ratio:
                    fed.append((surge.ratio, c))
                else:
                    carriers.append(c)
        if fed:
            return max(fed)[1]
        frontier = carriers
    return None


def _callers(g: nx.DiGraph, e: str, profiles: dict[str, EntityProfile]) -> list[str]:
    return [
        c for c in g.predecessors(e) if g.edges[c, e].get("relation", "depends_on") == "depends_on" and c in profiles
    ]


def _rise(p: EntityProfile) -> Anomaly | None:
    return max((a for a in p.traffic if a.direction == "up"), key=lambda a: a.ratio, default=None)


def _surge(p: EntityProfile) -> Anomaly | None:
    rises = [a for a in p.traffic if a.direction == "up" and a.ratio >= SURGE_RATIO]
    return max(rises, key=lambda a: a.ratio, default=None)


def waits_on_a_vendor(
    e: str, p: EntityProfile, g: nx.DiGraph, profiles: dict[str, EntityProfile], onset: int | None
) -> str | None:
    """The unseen third party whose slowness or failures are all `e` shows, if any.

    A vendor reports nothing; its caller's symptoms, with no cause of their own, are all
    there is of it, so everything the caller shows is the vendor's fault seen again (and
    the louder the caller, the more of it): the caller ranks below it, as a span-tied
    victim does (`hypotheses.rank_below_causes`). One vendor only: with two, which one
    it waited on is for the evidence to say.
    """
    if e not in g or not unexplained(p, onset):
        return None
    vendors = [d for d in g.successors(e) if d in profiles and _unseen_vendor(g, e, profiles[d])]
    return vendors[0] if len(vendors) == 1 else None


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
