"""Attribution from traces: which service's own work changed, and who is only passing it on.

The loudest span is seldom the culprit: a fault anywhere lengthens every span
above it, up to the entry service every request goes through. So the trace
findings (`context.trace_evidence`) are read as causes and effects:

* **own work**: a service's self time rose (its spans got slower with calls out
  excluded), over all its calls or in one caller's: saturation or a slow code
  path *here*;
* **network or queue into a service**: the calls touching it got slower by time
  its own spans do not cover (client span minus server span). A delay on one
  service's network shows on every call edge into and out of it, so an edge is
  blamed on the endpoint whose incident edges grew most consistently: the
  callee of an edge whose caller's other calls are fine, not the caller. Edges
  too rare to compare alone are pooled per service (all calls into it, all its
  calls out): calls out that slowed to several callees at once are the
  caller's own side (a starved service, its own network);
* **other code paths**: the share of a service's calls that run one of its own
  inner operations moved: saturation slows operations, only different code (or
  data) changes which of them run; likewise the share of one operation's calls
  that still succeed and log a given line (`log_path`): a wrong return value
  or an early return fails nothing where it happens, but skips lines;
* **errors where they originate**: the deepest errored span whose children did
  not error; the callers that surface them are victims;
* **a dependency down**: client calls to it that no span of it answered;
* **a callee that writes no spans** (a vendor API, an uninstrumented database):
  its callers' client spans are all there is of it, so calls to it that
  slowed are its slowness or the network to it, and calls that now fail are
  it failing (half, when the caller's own work rose too);
* **calls end at it**: more of a caller's calls end with the call to it (the
  caller gave up there: an error, or an answer it could not use), the trace of a
  code fault even where spans carry no status; full weight when the caller's
  calls also made fewer calls out or when several callers stop there, half
  otherwise (callers asking for other pages move the share too, and one
  caller's own fault stops its work after some call as well);
* **a common cause**: when several callers' calls end at the same callee more
  often, or one caller's do at a callee whose own code took other paths at the
  onset, and errors originate in those callers' own spans, the callee's answers
  are what they fail on (a wrong return value raises in the caller): the
  callers are its victims, however many errors they raise, unless their own
  work changed more than the callee's;
* **victims**: a service whose latency rose while its own work did not, by the
  time it spent calling one dependency (or whose errors came from a call out);
* **unharmed calls**: a caller's calls to a callee that the spans timed and
  counted failures of after the onset, with nothing on them changed the way a
  fault changes them (slower, failing, unanswered, the caller stopping or
  raising right after): a caller with a change of its own in its spans is not
  passing on that callee's trouble (`engine/victims.py`).

A hub on every path gets no credit for being on every path: what a service
scores here comes only from the change attributed to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rootward.context.trace_evidence import MIN_RELATIVE, TraceFinding
from rootward.domain.evidence import EvidenceRef
from rootward.engine.signals import strength

# A share change of this size (e.g. 0% -> 30% of calls failing) is as strong as a share gets.
FULL_SHARE = 0.3
# A changed code path may also be callers asking for something else.
CODE_PATH_SHARE = 0.5
# The other readings of "the calls into it got slower by time its spans do not see".
QUEUE_SHARE = 0.5
# Calls that end at a callee, without the caller's calls getting shorter: may be another request mix.
ENDS_HERE_SHARE = 0.5
# This many callers stopping after the same callee make it their common cause.
MIN_SHARED_CALLERS = 2
# How much more grown edges count: a leaf with one grown edge has support 0.75, a service whose
# three edges all grew 0.98, so the wider explanation wins a tie.
CONSISTENCY_BASE = 0.25
# How a pooled network finding reads in a reason, in place of one edge.
_POOLED = {"network_in": "all calls into it, pooled", "network_out": "all its calls out, pooled"}
# A service is a victim only when what it calls carries clearly more attributed change.
VICTIM_MARGIN = 1.5


@dataclass(frozen=True)
class FaultHint:
    """A fault type the trace evidence points at, at one entity (read by `signatures.classify`)."""

    fault_type: str
    score: float
    evidence: tuple[EvidenceRef, ...]
    reason: str


@dataclass
class TraceAttribution:
    entity: str
    own: float = 0.0  # 0..1: the strongest change attributed to the entity itself
    victim_of: str | None = None
    hints: list[FaultHint] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    evidence: list[EvidenceRef] = field(default_factory=list)
    symptomatic: bool = False  # its latency or errors moved the harmful way, whoever caused it
    work: float = 0.0  # the strongest change of its own work (times, network, code paths), failures aside
    other_paths: bool = False  # its own code took other paths at the onset (`_other_paths`)
    unharmed_callees: frozenset[str] = frozenset()  # callees whose calls from it did not change (`_unharmed_callees`)
    slowed_callees: frozenset[str] = frozenset()  # callees whose calls from it got slower, as the caller saw them
    waited_for: bool = False  # calls into it spent longer outside its spans (its network, or a queue before it)
    # Callers whose failures followed answers of its that skipped a line its calls always logged (`answers_off_path`).
    failed_on_by: frozenset[str] = frozenset()

    def credit(self, hint: FaultHint) -> None:
        self.hints.append(hint)
        self.own = max(self.own, hint.score)
        self.reasons.append(hint.reason)
        self.evidence += [e for e in hint.evidence if e not in self.evidence]


def share_strength(f: TraceFinding) -> float:
    return min(1.0, max(0.0, f.after - f.before) / FULL_SHARE) if f.up else 0.0


def _share_rise(f: TraceFinding) -> float:
    """A share's rise, as `share_strength` weighs it, whether or not it passed its own test."""
    return min(1.0, max(0.0, f.after - f.before) / FULL_SHARE)


def time_strength(f: TraceFinding) -> float:
    return strength(f.score) if f.up else 0.0


class _Index:
    def __init__(self, findings: Sequence[TraceFinding]) -> None:
        self.service: dict[tuple[str, str], TraceFinding] = {}
        self.edges: dict[str, list[TraceFinding]] = {}
        for f in findings:
            if f.caller is None:
                self.service[(f.entity, f.kind)] = f
            else:
                self.edges.setdefault(f.kind, []).append(f)

    def of(self, entity: str, kind: str) -> TraceFinding | None:
        return self.service.get((entity, kind))

    def touching(self, entity: str, kind: str) -> list[TraceFinding]:
        return [f for f in self.edges.get(kind, []) if entity in (f.entity, f.caller)]

    def into(self, entity: str, kind: str) -> list[TraceFinding]:
        return [f for f in self.edges.get(kind, []) if f.entity == entity]

    def out_of(self, entity: str, kind: str) -> list[TraceFinding]:
        return [f for f in self.edges.get(kind, []) if f.caller == entity]

    def entities(self) -> set[str]:
        names = {e for e, _ in self.service}
        names |= {x for fs in self.edges.values() for f in fs for x in (f.entity, f.caller) if x}
        return names


def _support(ix: _Index, entity: str) -> float:
    """How consistently the calls touching `entity` slowed outside the callee's spans.

    A delay on one service's network (or a queue in front of it) shows on the calls into it,
    and often on its calls out; it does not show on its neighbours' other calls. More grown
    edges make the wider explanation win a tie (a leaf with one grown edge gets 0.75).
    """
    incident = ix.touching(entity, "network")
    grown = sum(1 for f in incident if f.up)
    if not grown:
        return 0.0
    return grown / len(incident) * (1.0 - CONSISTENCY_BASE**grown)


def _network(ix: _Index, entity: str, support: dict[str, float]) -> tuple[float, list[TraceFinding]]:
    """The network or queue delay attributed to `entity`: each grown edge goes to its better-supported end.

    Ties go to the callee: a slow call whose callee's spans did not slow is the callee's network
    or queue, not the caller's.
    """
    mine: list[tuple[float, TraceFinding]] = []
    for f in ix.touching(entity, "network"):
        if not f.up or f.caller is None:
            continue
        callee, caller = support.get(f.entity, 0.0), support.get(f.caller, 0.0)
        blamed = f.entity if callee >= caller else f.caller
        if blamed == entity and callee + caller > 0:
            mine.append((time_strength(f) * support[entity] / (callee + caller), f))
    if not mine:
        return 0.0, []
    mine.sort(key=lambda x: -x[0])
    return mine[0][0], [f for _, f in mine]


def _neighbours(ix: _Index, e: str, callers: bool) -> set[str]:
    """The services that call `e` (or that `e` calls) in the compared calls."""
    edges = [f for kind in ("call_latency", "network", "call_volume") for f in ix.edges.get(kind, [])]
    if callers:
        return {f.caller for f in edges if f.entity == e and f.caller}
    return {f.entity for f in edges if f.caller == e}


def _starved(ix: _Index, e: str) -> bool:
    """Whether `e`'s own side explains the slow time in its calls out.

    A service too starved to send its requests and read the replies (or with a slow network
    of its own) slows its calls to every callee; one slow callee slows only the calls to it.
    So this needs several callees, and every call edge of it with calls enough to be judged
    alone must have grown too (edges that can be judged alone are read edge by edge).
    """
    pooled = ix.of(e, "network_out")
    if pooled is None or not pooled.up or len(_neighbours(ix, e, callers=False)) < MIN_SHARED_CALLERS:
        return False
    judged = ix.out_of(e, "network")
    # One edge judged alone that grew can be all the pooled growth: that callee's, read edge by edge.
    return all(f.up for f in judged) and len(judged) != 1


def _pooled_network(ix: _Index, e: str) -> tuple[float, TraceFinding | None]:
    """Network or queue time attributed to `e` from all its calls pooled, for edges too rare to judge alone.

    The calls into it slowed outside its spans: its network or queue, unless its callers are
    starved on their own side. Its calls out slowed outside the callees' spans, broadly: its own side.
    """
    into, out = ix.of(e, "network_in"), ix.of(e, "network_out")
    best: tuple[float, TraceFinding | None] = (0.0, None)
    if into is not None and into.up:
        callers = _neighbours(ix, e, callers=True)
        if not any(_starved(ix, c) for c in callers):
            best = (time_strength(into), into)
    if out is not None and _starved(ix, e) and time_strength(out) > best[0]:
        best = (time_strength(out), out)
    return best


def _own(ix: _Index, a: TraceAttribution, support: dict[str, float]) -> None:
    """Credit the entity with the changes of its own work: slower, queued behind, or other code paths."""
    e = a.entity
    # Its own work: over all calls into it, or in one caller's calls (one operation can slow
    # while the many calls of another keep the service's median where it was).
    own = [f for f in [ix.of(e, "self_time"), *ix.into(e, "callee_self_time")] if f is not None and f.up]
    own_work = max((time_strength(f) for f in own), default=0.0)
    if own_work > 0:
        top = max(own, key=time_strength)
        a.credit(FaultHint("cpu_saturation", own_work, (top.evidence,), f"{e}'s own work per call rose ({top.where})"))
        a.hints.append(FaultHint("deploy_regression", own_work * 0.6, (top.evidence,), "or a slower code path"))
    net, grown = _network(ix, e, support)
    pooled_net, pooled = _pooled_network(ix, e)
    if pooled is not None and net == 0.0:  # edges that can be judged alone are read edge by edge
        net, grown = pooled_net, [pooled]
    if net > 0:
        refs = tuple(f.evidence for f in grown[:3])
        edges = ", ".join(_POOLED.get(f.kind, f.where) for f in grown[:3])
        own_side = grown[0].kind == "network_out"
        if own_work > 0:  # its own spans are slower too: requests queue at a saturated service
            a.credit(FaultHint("cpu_saturation", net, refs, f"calls touching {e} wait outside its spans ({edges})"))
        elif own_side:
            reason = f"{e}'s calls out slowed outside its callees' spans, to several callees ({edges})"
            a.credit(FaultHint("network_latency", net, refs, reason))
            a.hints.append(FaultHint("cpu_saturation", net * QUEUE_SHARE, refs, f"or {e} is too starved to make them"))
        else:
            a.credit(FaultHint("network_latency", net, refs, f"calls touching {e} slowed outside its spans ({edges})"))
            a.hints.append(FaultHint("cpu_saturation", net * QUEUE_SHARE, refs, f"or requests queue before {e}"))
    path, volume = ix.of(e, "code_path"), ix.of(e, "volume")
    # Its callers changed, not only its code: they call it in other proportions, or their requests
    # now end early at another callee (a cut-short request asks the rest of its callees for less).
    asked_differently = (volume is not None and volume.changed) or _cut_short_elsewhere(ix, e)
    if path is not None and path.changed and not asked_differently:
        # Saturation slows a service's own operations; only other code changes which run, or other
        # requests (callers asking for something else): half the weight of an error's origin.
        moved = CODE_PATH_SHARE * min(1.0, abs(path.after - path.before) / FULL_SHARE)
        a.credit(FaultHint("deploy_regression", moved, (path.evidence,), f"{e}'s code takes other paths"))
    logged = ix.of(e, "log_path")
    if logged is not None and logged.changed:
        # Calls that still succeed log other lines than the same operation's calls did before:
        # its code returns early or branches elsewhere (a wrong return value looks just so).
        moved = CODE_PATH_SHARE * min(1.0, abs(logged.after - logged.before) / FULL_SHARE)
        reason = f"{e}'s calls that succeed log other lines than before: its code takes another path"
        a.credit(FaultHint("deploy_regression", moved, (logged.evidence,), reason))
    elif (off := _off_path_answers(ix, e)) is not None:
        # Too few of its calls skipped the line to stand out among all of them, but the ones a
        # caller failed right after did: what it answered there is what the caller failed on, so
        # those failures are its own, weighed as errors originating in it are. The rise of the
        # caller's failures need not pass its own test: that they follow these answers has.
        raised = [f for f in ix.into(e, "errors_after") if f.caller == off.caller]
        reason = f"the answers {off.caller} failed right after skipped a line {e}'s calls always logged"
        refs = (off.evidence, *(f.evidence for f in raised))
        a.credit(FaultHint("deploy_regression", max(map(_share_rise, raised), default=0.0), refs, reason))


def _off_path_answers(ix: _Index, e: str) -> TraceFinding | None:
    """The strongest sign that the answers a caller failed right after skipped a line `e` always logged."""
    found = [f for f in ix.into(e, "answers_off_path") if f.changed and f.up]
    return max(found, key=lambda f: (share_strength(f), f.caller or ""), default=None)


def _other_paths(ix: _Index, e: str) -> bool:
    """Whether `e`'s own code took other paths at the onset (inner operations or log lines), not its callers'."""
    logged = ix.of(e, "log_path")
    if (logged is not None and logged.changed) or _off_path_answers(ix, e) is not None:
        return True
    path, volume = ix.of(e, "code_path"), ix.of(e, "volume")
    asked_differently = (volume is not None and volume.changed) or _cut_short_elsewhere(ix, e)
    return path is not None and path.changed and not asked_differently


def _cut_short_elsewhere(ix: _Index, e: str) -> bool:
    """Whether a caller of `e` now ends its calls at another callee more often."""
    callers = {f.caller for kind in ("call_latency", "last_call") for f in ix.into(e, kind) if f.caller}
    return any(f.up and f.entity != e for c in callers for f in ix.out_of(c, "last_call"))


def _own_failures(ix: _Index, a: TraceAttribution) -> None:
    """Credit the entity with errors that originate in its spans and calls it never answered."""
    e = a.entity
    origin = ix.of(e, "origin_errors")
    if origin is not None and share_strength(origin) > 0:
        hint = FaultHint(
            "deploy_regression", share_strength(origin), (origin.evidence,), f"errors originate in {e}'s own spans"
        )
        a.credit(hint)
    down = [f for f in ix.into(e, "unanswered") if f.up]
    if down:
        best = max(down, key=share_strength)
        callers = ", ".join(sorted(f.caller or "" for f in down))
        reason = f"calls from {callers} get no answer from {e} (no span of it under them)"
        a.credit(FaultHint("dependency_down", share_strength(best), tuple(f.evidence for f in down[:3]), reason))
    ends = [(f, _truncated(ix, f.caller)) for f in _endings(ix, e)]
    if ends:
        shared = len(ends) >= MIN_SHARED_CALLERS
        f, shorter = max(ends, key=lambda x: (share_strength(x[0]) * (1.0 if x[1] else ENDS_HERE_SHARE), x[0].where))
        refs = tuple(x.evidence for x, _ in ends[:3]) + (() if shorter is None else (shorter.evidence,))
        callers = ", ".join(sorted(x.caller or "" for x, _ in ends))
        reason = f"more of {callers}'s calls stop after calling {e}" + (" and make fewer calls out" if shorter else "")
        weight = 1.0 if shorter or shared else ENDS_HERE_SHARE
        a.credit(FaultHint("deploy_regression", share_strength(f) * weight, refs, reason))


def _spanless(ix: _Index, e: str) -> bool:
    """Whether `e` writes no spans: every call to it, before the onset and after, went unanswered."""
    into = ix.into(e, "unanswered")
    return bool(into) and ix.of(e, "latency") is None and all(f.before >= 1.0 and f.after >= 1.0 for f in into)


def _unseen_callee(ix: _Index, a: TraceAttribution) -> None:
    """Credit a callee that writes no spans (a vendor API, an uninstrumented database) with its calls' change.

    Its callers' client spans are all there is of it: time they spent waiting on it is its
    work and the network to it at once, and calls to it that now fail are it failing. A caller
    whose own work rose may be slow to make its calls; that reading takes half.
    """
    e = a.entity
    if not _spanless(ix, e):
        return
    slower = []
    for f in ix.into(e, "call_latency"):
        caller_work = ix.of(f.caller, "self_time") if f.caller else None
        starved = (caller_work is not None and caller_work.up) or (f.caller is not None and _starved(ix, f.caller))
        slower.append((time_strength(f) * (QUEUE_SHARE if starved else 1.0), f))
    slower = [(score, f) for score, f in slower if score > 0]
    if slower:
        score, f = max(slower, key=lambda x: (x[0], x[1].where))
        refs = tuple(x.evidence for _, x in sorted(slower, key=lambda x: -x[0])[:3])
        reason = f"calls to {e}, which writes no spans of its own, slowed ({f.where})"
        a.credit(FaultHint("network_latency", score, refs, reason))
    failing = [f for f in ix.into(e, "call_errors") if share_strength(f) > 0]
    if failing:
        f = max(failing, key=lambda x: (share_strength(x), x.where))
        reason = f"calls to {e}, which writes no spans of its own, fail ({f.where})"
        a.credit(FaultHint("dependency_down", share_strength(f), tuple(x.evidence for x in failing[:3]), reason))


def _endings(ix: _Index, callee: str) -> list[TraceFinding]:
    """Per caller, the strongest sign that its calls now end at `callee`: they stop there, or raise right after."""
    best: dict[str, TraceFinding] = {}
    for f in ix.into(callee, "last_call") + ix.into(callee, "errors_after"):
        if f.up and f.caller and (f.caller not in best or share_strength(f) > share_strength(best[f.caller])):
            best[f.caller] = f
    return [best[c] for c in sorted(best)]


def _common_cause(ix: _Index, e: str) -> TraceFinding | None:
    """The callee that `e`'s calls now end at and that other callers' calls end at too, whose own
    code took other paths at the same time, or whose calls from `e` themselves went wrong, if any."""
    mine = [f for f in ix.out_of(e, "last_call") + ix.out_of(e, "errors_after") if f.up]
    shared = [
        f
        for f in mine
        if len(_endings(ix, f.entity)) >= MIN_SHARED_CALLERS
        or _other_paths(ix, f.entity)
        or _went_wrong(ix, e, f.entity)
    ]
    return max(shared, key=lambda f: (share_strength(f), f.entity), default=None)


def _went_wrong(ix: _Index, caller: str, callee: str) -> bool:
    """Whether the calls themselves went wrong: slower, or unanswered (no span of the callee under them).

    A caller raising right after a call reads two ways, its bug or the answer it got; a call
    that timed out or never got an answer is no answer to have a bug about.
    """
    return any(f.up and f.entity == callee for kind in ("call_latency", "unanswered") for f in ix.out_of(caller, kind))


def _truncated(ix: _Index, caller: str | None) -> TraceFinding | None:
    """The caller's fanout finding when its calls made clearly fewer calls out after the onset."""
    fanout = ix.of(caller, "fanout") if caller else None
    return fanout if fanout is not None and fanout.changed and fanout.score < 0 else None


def _passed_on(ix: _Index, a: TraceAttribution, by: dict[str, TraceAttribution]) -> None:
    """Whether the entity's symptoms are time or errors spent in one call out: it is that callee's victim."""
    e = a.entity
    latency, errors = ix.of(e, "latency"), ix.of(e, "errors")
    slow = bool(latency and latency.up) or any(f.up for f in ix.into(e, "call_latency"))
    origin = ix.of(e, "origin_errors")
    failing = any(f is not None and f.up for f in (errors, origin)) or any(f.up for f in ix.into(e, "call_errors"))
    a.symptomatic = slow or failing or a.own > 0
    candidates: list[tuple[float, str, TraceFinding]] = []
    if slow:
        candidates += [(f.after - f.before, f.entity, f) for f in ix.out_of(e, "call_latency") if f.up]
    if failing and not (origin and origin.up):
        candidates += [(f.after - f.before, f.entity, f) for f in ix.out_of(e, "call_errors") if f.up]
    common = _common_cause(ix, e) if failing else None
    if common is not None and by[common.entity].own * VICTIM_MARGIN >= a.work:
        # Errors raised in its own spans, right after the answer of a callee that several
        # callers now stop at, or whose code just took other paths: the callee's answers are
        # what it fails on, unless its own work changed more than the callee's did.
        a.victim_of = common.entity
        a.reasons.append(f"its errors follow {common.entity}'s answers, which changed at the onset")
        a.evidence.append(common.evidence)
        return
    if not candidates:
        return
    _, callee, finding = max(candidates, key=lambda c: (c[0], c[1]))
    callee_own = by[callee].own if callee in by else 0.0
    if a.own == 0.0 or a.own * VICTIM_MARGIN <= callee_own:
        a.victim_of = callee
        a.reasons.append(f"its symptoms are time or failures in its calls to {callee}")
        a.evidence.append(finding.evidence)


def _path_passed_up(ix: _Index, a: TraceAttribution, by: dict[str, TraceAttribution]) -> None:
    """A service whose calls took other paths, as did those of a callee it calls, passes the callee's change on.

    A wrong return value or an exception changes an answer, and answers travel up: the
    caller branches on what it got (logs a fallback, returns a failure of its own) without
    failing anything a tracer sees. What travels down is fewer calls (work cut short), which
    moves a callee's volume, not which lines its calls of one operation log. So of two path
    changes on one call edge the callee's is the origin, unless the caller's own work changed
    more than the callee's did.
    """
    e = a.entity
    errors = ix.of(e, "errors")
    if a.victim_of is not None or (errors is not None and errors.up) or not _other_paths(ix, e):
        return  # a failing caller is read by its errors (`_passed_on`)
    changed = [c for c in sorted(_neighbours(ix, e, callers=False)) if c in by and _other_paths(ix, c)]
    if not changed:
        return
    callee = max(changed, key=lambda c: by[c].own)
    if by[callee].own * VICTIM_MARGIN >= a.work:
        a.victim_of = callee
        a.reasons.append(f"its calls took other paths as {callee}'s did: the change came up from {callee}")
        a.evidence += [f.evidence for f in (ix.of(callee, "log_path"), ix.of(callee, "code_path")) if f is not None]


def _unharmed_callees(ix: _Index, e: str) -> frozenset[str]:
    """The callees whose calls from `e` the spans timed and counted failures of, with nothing changed.

    Nothing changed means no finding on the edge moved the way a fault moves it: slower, failing,
    unanswered, the caller stopping or raising right after the call.
    """
    timed = {f.entity for f in ix.out_of(e, "call_latency")} & {f.entity for f in ix.out_of(e, "call_errors")}
    harmed = {f.entity for fs in ix.edges.values() for f in fs if f.caller == e and f.harmful}
    return frozenset(timed - harmed)


def _slowed_callees(ix: _Index, e: str) -> frozenset[str]:
    """The callees whose calls from `e` got slower as `e` saw them: the whole call, or the wait outside
    the callee's spans by a material part of the call (the callee's own time varies more than a
    delay on its network does, and can hide it in the whole call's spread)."""
    calls = {f.entity: f for f in ix.out_of(e, "call_latency")}
    slowed = {d for d, f in calls.items() if f.up}
    for f in ix.out_of(e, "network"):
        call = calls.get(f.entity)
        if f.up and call is not None and f.after - f.before >= MIN_RELATIVE * call.before:
            slowed.add(f.entity)
    return frozenset(slowed)


def attribute_traces(findings: Iterable[TraceFinding]) -> dict[str, TraceAttribution]:
    """Per entity seen in the traces: what change is its own, and whose victim it is."""
    ix = _Index(list(findings))
    by = {e: TraceAttribution(e) for e in sorted(ix.entities())}
    # A starved service explains every slow call out of it better than any one callee does.
    support = {e: 1.0 if _starved(ix, e) else _support(ix, e) for e in by}
    for a in by.values():
        _own(ix, a, support)
        a.work, a.other_paths = a.own, _other_paths(ix, a.entity)
        a.failed_on_by = frozenset(f.caller for f in ix.into(a.entity, "answers_off_path") if f.up and f.caller)
        _own_failures(ix, a)
        _unseen_callee(ix, a)
    for a in by.values():
        _passed_on(ix, a, by)
    for a in by.values():
        _path_passed_up(ix, a, by)
    for a in by.values():
        a.hints.sort(key=lambda h: (-h.score, h.fault_type))
        a.unharmed_callees = _unharmed_callees(ix, a.entity)
        a.slowed_callees = _slowed_callees(ix, a.entity)
        pooled_in = ix.of(a.entity, "network_in")
        a.waited_for = any(f.up for f in ix.into(a.entity, "network")) or (pooled_in is not None and pooled_in.up)
    return by
