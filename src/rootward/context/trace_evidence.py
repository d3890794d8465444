"""Trace evidence: per service and per call edge, what changed in the spans at the onset.

For every service: how long it took to answer (latency), how much of that was
its own work (self time), how often calls into it failed, how often a failure
originated in its own spans, and its share of all calls. For every call edge
caller -> callee: the call as the caller saw it, the part of it the callee
never saw (network and queue), failures, calls the callee never answered, and
the edge's share of all calls. Each is compared before vs after the onset with
robust statistics (medians and MAD for times, binomial shares for counts), so a
handful of pathological requests cannot move it.

Every aggregate with enough calls on both sides is kept, changed or not: the
attribution in the engine needs "the callee's own work did not change" as much
as "the call got slower". Each cites the spans it rests on with the bundle's
cite forms `traces.jsonl:<service>@<start>-<end>` and
`traces.jsonl:<caller>-><callee>@<start>-<end>`, over the spans after the onset.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from statistics import NormalDist
from typing import Literal

import numpy as np
from pydantic import BaseModel

from rootward.context.anomaly import AFTER_SPAN
from rootward.context.chance import binomial_tail
from rootward.context.median import median
from rootward.context.span_graph import SpanGraph, SpanTable, span_graph
from rootward.context.window import IncidentWindow
from rootward.domain.evidence import EvidenceRef
from rootward.domain.telemetry import Span

TraceKind = Literal[
    "latency",  # service: entry span duration
    "self_time",  # service: its own work per call
    "errors",  # service: share of calls into it that failed
    "origin_errors",  # service: share of calls in which a failure originated in its own spans
    "volume",  # service: share of all calls that are calls into it
    "code_path",  # service: share of its calls that ran one of its own inner operations (the one that moved most)
    "log_path",  # service: share of its calls of one operation, not failed, that logged a template (most moved)
    "fanout",  # service: calls out per call (median)
    "network_in",  # service: time of the calls into it that its spans do not cover, all callers pooled
    "network_out",  # service: time of its calls out that the callees' spans do not cover, all callees pooled
    "call_latency",  # edge: the call as the caller saw it
    "network",  # edge: client span time the callee's span does not cover
    "callee_latency",  # edge: the callee's span duration, for this caller's calls
    "callee_self_time",  # edge: the callee's own work in this caller's calls
    "call_errors",  # edge: share of calls that failed on the caller's side
    "unanswered",  # edge: share of client calls with no span of the callee under them
    "call_volume",  # edge: share of all calls that go over this edge
    "last_call",  # edge: share of the caller's calls (with calls out) whose last call out was this one
    "errors_after",  # edge: share of the caller's calls (with calls out) that raised in its own spans after this one
    "answers_off_path",  # edge: share of the callee's answers that skipped a line it always logged, before the
    # caller raised right after them (after the onset) vs among all the callee's calls (before)
]
TIME_KINDS: frozenset[str] = frozenset(
    {
        "latency",
        "self_time",
        "network_in",
        "network_out",
        "call_latency",
        "network",
        "callee_latency",
        "callee_self_time",
    }
)
# A median shift of this many baseline spreads, as for metric anomalies.
Z_CHANGED = 4.0
# A share whose binomial z reaches this (about one chance in a thousand by luck).
Z_SHARE = 3.0
MIN_CALLS = 5
# A template logged in at least this share of an operation's calls before the onset is one it always
# logs (`_always_logged`): nine in ten, so a statement skipped now and then before still counts.
ALWAYS_LOGGED = 0.9
# Times after the onset may rest on fewer calls: the shift is shrunk by n / (n + MIN_CALLS), so with
# three calls only a shift of over ten baseline spreads counts (a sparse edge that became ten times slower).
MIN_CALLS_AFTER = 3
# A baseline of two to four calls has no spread of its own to judge a shift by: it borrows one from the
# aggregates of the same kind that had enough calls (`_Builder.spread_prior`), the upper quartile of their
# relative spreads, so a sparse edge is judged as noisy as most of the system's well-sampled ones.
MIN_SPARSE_BASELINE = 2
PRIOR_QUANTILE = 0.75
MIN_PRIORS = 3
# A stretch this long without a single call is a hole in the store: the baseline's stretches part there.
HOLE_S = 120.0
# A latency change below this fraction of its baseline is not worth an investigator's time.
MIN_RELATIVE = 0.2
MIN_SHARE_DELTA = 0.02
# A spread below this fraction of the median (or this many ms) is resolution, not stability.
SCALE_FLOOR = 0.05
MS_FLOOR = 0.01

_WHAT: dict[str, str] = {
    "latency": "latency",
    "self_time": "self time (its own work, calls out excluded)",
    "errors": "share of failed calls",
    "origin_errors": "share of calls with a failure originating in its own spans",
    "volume": "share of all calls",
    "code_path": "share of its calls that ran its own operation",
    "log_path": "share of its calls that did not fail and logged",
    "fanout": "calls out per call",
    "network_in": "time in the calls into it that its spans do not cover (network, queue; all callers)",
    "network_out": "time in its calls out that the callees' spans do not cover (all callees)",
    "call_latency": "call latency seen by the caller",
    "network": "time in the call the callee's span does not cover (network, queue)",
    "callee_latency": "the callee's span duration",
    "callee_self_time": "the callee's own work (self time, its calls out excluded)",
    "call_errors": "share of failed calls",
    "unanswered": "share of calls with no span of the callee",
    "call_volume": "share of all calls",
    "last_call": "share of the caller's calls that ended with this call",
    "errors_after": "share of the caller's calls that failed in its own spans right after this call",
    "answers_off_path": "share of the callee's answers that skipped a line its calls always logged"
    " (after the onset: those the caller failed right after)",
}
COUNT_KINDS: frozenset[str] = frozenset({"fanout"})
# Kinds whose rise is a fault's doing (volume, code paths and fanout move either way with the request mix).
HARMFUL_KINDS: frozenset[str] = TIME_KINDS | {
    "errors",
    "origin_errors",
    "call_errors",
    "unanswered",
    "last_call",
    "errors_after",
    "answers_off_path",
}


class TraceFinding(BaseModel):
    """One span aggregate of a service (or a call edge), before vs after the onset."""

    kind: TraceKind
    entity: str  # the service; for an edge, the callee
    caller: str | None = None  # set for edge aggregates
    before: float  # median ms, or a share in 0..1
    after: float
    n_before: int
    n_after: int
    score: float  # signed: robust z of the median shift, or the binomial z of the share
    changed: bool
    evidence: EvidenceRef
    since: int | None = None  # epoch seconds of the first cited call after the onset

    @property
    def harmful(self) -> bool:
        """Changed the way a fault changes it: slower, or more calls failing, unanswered or cut short."""
        return self.up and self.kind in HARMFUL_KINDS

    @property
    def where(self) -> str:
        return f"{self.caller}->{self.entity}" if self.caller else self.entity

    @property
    def up(self) -> bool:
        return self.changed and self.score > 0


def _shift(before: np.ndarray, after: np.ndarray, prior: float = 0.0) -> tuple[float, float, float, bool]:
    """Median before, median after, the shift in baseline MADs (shrunk for few calls), changed.

    `prior`: a relative spread the baseline's own may not fall below (a sparse baseline's borrowed one).
    """
    mb, ma = median(before), median(after)
    mad = 1.4826 * median(np.abs(before - mb))
    scale = max(mad, max(SCALE_FLOOR, prior) * abs(mb), MS_FLOOR)
    n = min(before.size, after.size)
    z = (ma - mb) / scale * n / (n + MIN_CALLS)
    changed = abs(z) >= Z_CHANGED and abs(ma - mb) >= MIN_RELATIVE * max(abs(mb), MS_FLOOR)
    return mb, ma, z, changed


def _baseline_level(before: np.ndarray, at: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """The baseline calls to compare with: all of them, or only its healthiest stretch when they differ.

    A baseline that holds an earlier event (the tail of a previous incident, a deploy, the
    previous fault of a fault-injection run) has more than one level, and its median and
    spread describe none of them: the fault's shift is lost in that spread. The baseline is
    cut into stretches at `cuts` (`_cuts`: the last stretch before the onset, as long as the
    stretch compared after it; holes in the calls, where a store kept only the minutes
    around each incident); when one stretch differs from another (judged by either one's
    spread: an incident's calls are widely spread, a healthy level is tight), the fastest
    is the level to compare with. Usually
    that is the last stretch, the earlier event having passed. But where the store kept
    only the minutes around each incident, every stretch can be a previous incident, and
    the last one at the same service; against it this fault would read as a recovery.
    Those incidents hit other calls than this one, so one of the stretches is this call's
    normal. These are times, so the fastest level is the healthiest.
    """
    part = np.searchsorted(cuts, at, side="right")
    stretches = [g for g in (before[part == k] for k in np.unique(part)) if g.size >= MIN_CALLS]
    if len(stretches) < 2:
        return before
    best = min(reversed(stretches), key=median)  # on a tie, the later
    if not any(_shift(best, g)[3] or _shift(g, best)[3] for g in stretches if g is not best):
        return before
    return best


def _healthy_share_level(hit: np.ndarray, before: np.ndarray, at: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """The baseline calls for a share of failing calls: all of them, or the healthiest of its stretches.

    As `_baseline_level` for times: when the share in one stretch of the baseline differs
    from another's (the tail of a previous incident, or in a store that kept only the
    minutes around each incident, the previous incidents themselves), the lowest share is
    the level a fault moves away from. Every share read this way (errors, unanswered
    calls, calls cut short) is one a fault raises.
    """
    part = np.searchsorted(cuts, at, side="right")
    stretches = [g for g in (before & (part == k) for k in np.unique(part[before])) if int(g.sum()) >= MIN_CALLS]
    if len(stretches) < 2:
        return before
    sizes = [(int((hit & g).sum()), int(g.sum())) for g in stretches]
    best = min(reversed(range(len(stretches))), key=lambda i: sizes[i][0] / sizes[i][1])  # on a tie, the later
    if not any(_share(*sizes[i], *sizes[best])[3] for i in range(len(stretches)) if i != best):
        return before
    return stretches[best]


def _cuts(at: np.ndarray, baseline: tuple[float, float]) -> np.ndarray:
    """Where the baseline is cut into stretches whose levels `_baseline_level` compares.

    At the start of its last stretch as long as the stretch compared after the onset, and
    at the end of each hole of HOLE_S or more without a single call: a store that lost
    minutes, or kept only the minutes around each fault injection, each of them a stretch.
    """
    inside = np.sort(at[(at >= baseline[0]) & (at < baseline[1])])
    holes = inside[np.nonzero(np.diff(inside) >= HOLE_S)[0] + 1]
    return np.unique(np.array([baseline[1] - AFTER_SPAN, *holes.tolist()], dtype=float))


def _share(k_before: int, n_before: int, k_after: int, n_after: int) -> tuple[float, float, float, bool]:
    """Shares before and after, their pooled binomial z, changed."""
    pb, pa = k_before / n_before, k_after / n_after
    pooled = (k_before + k_after + 0.5) / (n_before + n_after + 1.0)
    z = (pa - pb) / math.sqrt(pooled * (1.0 - pooled) * (1.0 / n_before + 1.0 / n_after))
    return pb, pa, z, abs(z) >= Z_SHARE and abs(pa - pb) >= MIN_SHARE_DELTA


def _rare_by_chance(k_before: int, n_before: int, k_after: int, n_after: int) -> bool:
    """Whether `k_after` hits in `n_after` calls are as unlikely at the baseline's rate as `Z_SHARE` says.

    The pooled z of `_share` is an approximation for many calls. Over three or four it
    overstates a single hit against a clean baseline (one failure in three calls reads as
    z 3.5, though at a rate of one in fifty one of three fails six times in a hundred);
    the binomial tail at the baseline's rate (smoothed, so a clean baseline is not a rate
    of zero) does not. Only a rise is read: a fall in a handful of calls is never one.
    """
    rate = (k_before + 0.5) / (n_before + 1.0)
    if k_after / n_after <= rate:
        return False
    return binomial_tail(n_after, k_after, rate) <= 1.0 - NormalDist().cdf(Z_SHARE)


def _window(times: np.ndarray) -> tuple[int, int]:
    return math.floor(float(times.min())), math.ceil(float(times.max()))


class _Builder:
    def __init__(
        self, graph: SpanGraph, baseline: tuple[float, float], during: tuple[float, float], late_end: float
    ) -> None:
        self.graph = graph
        self.baseline = baseline
        self.during = during
        self.late_end = late_end
        self.cuts = _cuts(graph.calls.at, baseline)  # the baseline's stretches (`_baseline_level`)
        self.out: list[TraceFinding] = []
        self.spreads: dict[str, list[float]] = {}  # per time kind, the relative spreads of well-sampled baselines
        self.sparse: list[tuple[TraceKind, str, str | None, np.ndarray, np.ndarray, str]] = []

    def timed(
        self, of: np.ndarray, compared: np.ndarray, after: np.ndarray, at: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The calls of one aggregate (`of`) whose times are compared, and which of them are after the onset.

        Those of the stretch after the onset, or, where it holds fewer than MIN_CALLS_AFTER of them
        (an edge called once a minute), those up to `late_end` too: a delay persists while the
        fault does, and a sparse edge shows it only over more of it.
        """
        mine = of & compared
        if int((mine & after).sum()) >= MIN_CALLS_AFTER or self.late_end <= self.during[1]:
            return mine, after[mine]
        late = of & (at > self.during[1]) & (at <= self.late_end)
        mine = mine | late
        return mine, (after | late)[mine]

    def sides(self, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which calls are compared at all, and which of those are after the onset."""
        before = (at >= self.baseline[0]) & (at < self.baseline[1])
        after = (at >= self.during[0]) & (at <= self.during[1])
        return before | after, after

    def add(
        self,
        kind: TraceKind,
        entity: str,
        caller: str | None,
        stats: tuple[float, float, float, bool],
        sizes: tuple[int, int],
        cite: str,
        detail: str = "",
    ) -> None:
        before, after, score, changed = stats
        where = f"{caller}->{entity}" if caller else entity
        unit = " ms" if kind in TIME_KINDS else ""
        fmt = "{:.1f}" if kind in TIME_KINDS | COUNT_KINDS else "{:.1%}"
        excerpt = (
            f"{where} {_WHAT[kind]}{detail}: {fmt.format(before)}{unit} before the onset, {fmt.format(after)}{unit} "
            f"after (calls {sizes[0]}/{sizes[1]}, robust z {score:+.1f})"
        )
        self.out.append(
            TraceFinding(
                kind=kind,
                entity=entity,
                caller=caller,
                before=round(before, 4),
                after=round(after, 4),
                n_before=sizes[0],
                n_after=sizes[1],
                score=round(score, 2),
                changed=changed,
                evidence=EvidenceRef("trace", cite, excerpt),
                since=int(cite.rpartition("@")[2].partition("-")[0]),  # the cite's own first second
            )
        )

    def times(
        self,
        kind: TraceKind,
        entity: str,
        caller: str | None,
        values: np.ndarray,
        after: np.ndarray,
        cite: str,
        at: np.ndarray,
    ) -> None:
        ok = ~np.isnan(values)
        b, a = values[ok & ~after], values[ok & after]
        b = _baseline_level(b, at[ok & ~after], self.cuts)
        if a.size < MIN_CALLS_AFTER:
            return
        if b.size >= MIN_CALLS:
            self.add(kind, entity, caller, _shift(b, a), (b.size, a.size), cite)
            mb = median(b)
            if kind in TIME_KINDS and abs(mb) > MS_FLOOR:
                self.spreads.setdefault(kind, []).append(1.4826 * median(np.abs(b - mb)) / abs(mb))
        elif b.size >= MIN_SPARSE_BASELINE and kind in TIME_KINDS:
            self.sparse.append((kind, entity, caller, b, a, cite))

    def spread_prior(self, kind: str) -> float | None:
        """The relative spread a sparse baseline of `kind` borrows: the upper quartile of the well-sampled ones.

        Of the same kind where at least MIN_PRIORS aggregates had enough calls (network times
        spread unlike a service's own work), else of all times pooled; none where too few did.
        """
        own = self.spreads.get(kind, [])
        pooled = own if len(own) >= MIN_PRIORS else [r for rs in self.spreads.values() for r in rs]
        if len(pooled) < MIN_PRIORS:
            return None
        return float(np.quantile(pooled, PRIOR_QUANTILE))

    def judge_sparse(self) -> None:
        """The aggregates whose baseline had two to four calls, judged by the spread their kind borrows."""
        for kind, entity, caller, b, a, cite in self.sparse:
            prior = self.spread_prior(kind)
            if prior is not None:
                self.add(kind, entity, caller, _shift(b, a, prior), (b.size, a.size), cite)

    def share(
        self,
        kind: TraceKind,
        entity: str,
        caller: str | None,
        hit: np.ndarray,
        after: np.ndarray,
        cite: str,
        at: np.ndarray,
    ) -> None:
        before = _healthy_share_level(hit, ~after, at, self.cuts)
        nb, na = int(before.sum()), int(after.sum())
        if nb >= MIN_CALLS and na >= MIN_CALLS_AFTER:
            kb, ka = int((hit & before).sum()), int((hit & after).sum())
            stats = _share(kb, nb, ka, na)
            if na < MIN_CALLS:  # a sparse edge (a callee called once a minute): its few calls must say it alone
                stats = (*stats[:3], stats[3] and _rare_by_chance(kb, nb, ka, na))
            self.add(kind, entity, caller, stats, (nb, na), cite)

    def volume(
        self, kind: TraceKind, entity: str, caller: str | None, mine: np.ndarray, all_after: np.ndarray, cite: str
    ) -> None:
        """The share of all calls that are these: robust to sampling, and to minutes the data lacks."""
        nb, na = int((~all_after).sum()), int(all_after.sum())
        kb, ka = int((mine & ~all_after).sum()), int((mine & all_after).sum())
        if nb >= MIN_CALLS and na >= MIN_CALLS and kb + ka >= MIN_CALLS:
            self.add(kind, entity, caller, _share(kb, nb, ka, na), (kb, ka), cite)


def _services(b: _Builder) -> None:
    g, c = b.graph, b.graph.calls
    compared, after_all = b.sides(c.at)
    for code in np.unique(c.service[compared]):
        mine = (c.service == code) & compared
        name = g.name(int(code))
        at, after = c.at[mine], after_all[mine]
        lo, hi = _window(at[after] if after.any() else at)
        cite = f"traces.jsonl:{name}@{lo}-{hi}"
        b.times("latency", name, None, c.total_ms[mine], after, cite, at)
        b.times("self_time", name, None, c.self_ms[mine], after, cite, at)
        if g.has_status:
            b.share("errors", name, None, c.failed[mine], after, cite, at)
            b.share("origin_errors", name, None, c.originated[mine], after, cite, at)
        b.volume("volume", name, None, mine[compared], after_all[compared], cite)
        if c.fanout[mine].any():
            b.times("fanout", name, None, c.fanout[mine].astype(np.float64), after, cite, at)
        _code_path(b, name, mine, after_all, cite)
        _log_path(b, name, mine, after_all, cite)


def _pooled_network(b: _Builder) -> None:
    """Per service, the network time of all calls into it and of all its calls out, pooled.

    One rarely used edge has too few calls to compare on its own; a delay on a service's
    network, or a service too starved to handle its replies, shows on all its edges at once.
    """
    g, e = b.graph, b.graph.edges
    compared, after_all = b.sides(e.at)
    usable = compared & ~np.isnan(e.network_ms)
    sides: tuple[tuple[TraceKind, np.ndarray], ...] = (("network_in", e.callee), ("network_out", e.caller))
    for kind, side in sides:
        for code in np.unique(side[usable]):
            mine, after = b.timed((side == code) & ~np.isnan(e.network_ms), usable, after_all, e.at)
            name = g.name(int(code))
            at = e.at[mine]
            lo, hi = _window(at[after] if after.any() else at)
            b.times(kind, name, None, e.network_ms[mine], after, f"traces.jsonl:{name}@{lo}-{hi}", at)


def _code_path(b: _Builder, name: str, mine: np.ndarray, after: np.ndarray, cite: str) -> None:
    """The inner operation whose share of the service's calls moved most: its code took other paths."""
    paths = b.graph.paths
    nb, na = int((mine & ~after).sum()), int((mine & after).sum())
    if paths is None or nb < MIN_CALLS or na < MIN_CALLS:
        return
    here = mine[paths.call]
    best: tuple[float, float, float, bool] | None = None
    best_op = -1
    for op in np.unique(paths.op[here]):
        rows = paths.call[here & (paths.op == op)]
        kb, ka = int((~after[rows]).sum()), int(after[rows].sum())
        stats = _share(kb, nb, ka, na)
        if best is None or abs(stats[2]) > abs(best[2]):
            best, best_op = stats, int(op)
    if best is not None:
        # The most-moved of several operations: its z must clear the bar for that many tries.
        tries = int(np.unique(paths.op[here]).size)
        changed = best[3] and abs(best[2]) >= bonferroni_z(tries)
        stats = (best[0], best[1], best[2], changed)
        b.add("code_path", name, None, stats, (nb, na), cite, f" ({b.graph.operation(best_op)})")


def _log_path(b: _Builder, name: str, mine: np.ndarray, after: np.ndarray, cite: str) -> None:
    """The log template whose share of one operation's calls moved most, among calls that did not fail.

    Calls that failed are left out: they log their failure, which the error shares
    already read, and a caller that fails on a wrong answer stops logging what it
    logs when it succeeds. What is left is a service whose calls succeed as before
    yet run other code (a wrong return value, an early return). Per operation served,
    so callers asking for other operations move nothing here. Only calls in which the
    service logged something count: a log source that covers less of the window than
    the traces (it started later, it sampled) would otherwise change every share.
    """
    logged, calls = b.graph.logged, b.graph.calls
    if logged is None:
        return
    named = np.zeros(calls.service.size, dtype=bool)
    named[logged.call] = True
    fine = mine & named & ~calls.failed & ~calls.originated
    here = fine[logged.call]
    best: tuple[float, float, float, bool] | None = None
    best_key, sizes, tries = (-1, -1), (0, 0), 0
    for op in np.unique(calls.op[fine]):
        of_op = fine & (calls.op == op)
        nb, na = int((of_op & ~after).sum()), int((of_op & after).sum())
        if nb < MIN_CALLS or na < MIN_CALLS:
            continue
        rows = here & of_op[logged.call]
        for template in np.unique(logged.op[rows]):
            tries += 1
            hit = logged.call[rows & (logged.op == template)]
            stats = _share(int((~after[hit]).sum()), nb, int(after[hit].sum()), na)
            if best is None or abs(stats[2]) > abs(best[2]):
                best, best_key, sizes = stats, (int(op), int(template)), (nb, na)
    for template, ops in _always_logged(b, fine, after).items():
        of_ops = fine & np.isin(calls.op, ops)
        nb, na = int((of_ops & ~after).sum()), int((of_ops & after).sum())
        if len(ops) < 2 or na < MIN_CALLS:
            continue
        tries += 1
        hit = logged.call[here & of_ops[logged.call] & (logged.op == template)]
        stats = _share(int((~after[hit]).sum()), nb, int(after[hit].sum()), na)
        if best is None or abs(stats[2]) > abs(best[2]):
            best, best_key, sizes = stats, (-1, template), (nb, na)
    if best is not None:
        changed = best[3] and abs(best[2]) >= bonferroni_z(tries)
        op, template = best_key
        where = b.graph.operation(op) if op >= 0 else "every operation that always logged it"
        detail = f" '{b.graph.templates[template]}' in {where or 'its calls'}"
        b.add("log_path", name, None, (best[0], best[1], best[2], changed), sizes, cite, detail)


def _always_logged(b: _Builder, fine: np.ndarray, after: np.ndarray) -> dict[int, list[int]]:
    """Per template, the operations whose calls before the onset nearly all logged it (`ALWAYS_LOGGED`).

    A statement every call of several operations reaches (a request's end line, a common
    helper's) can be compared over those operations' calls together: the mix of operations
    callers ask for cannot move the pooled share, since each was at ~1 before, and a fault
    that skips the statement in a share of all calls shows on many calls rather than on the
    few of each operation.
    """
    logged, calls = b.graph.logged, b.graph.calls
    assert logged is not None
    out: dict[int, list[int]] = {}
    for op in np.unique(calls.op[fine]):
        before = fine & (calls.op == op) & ~after
        nb = int(before.sum())
        if nb < MIN_CALLS:
            continue
        rows = before[logged.call]
        templates, counts = np.unique(logged.op[rows], return_counts=True)
        for template, count in zip(templates.tolist(), counts.tolist(), strict=True):
            if count >= ALWAYS_LOGGED * nb:
                out.setdefault(int(template), []).append(int(op))
    return out


def bonferroni_z(tries: int) -> float:
    """The two-sided z that `Z_SHARE` corresponds to when the largest of `tries` shares is taken."""
    alpha = 2.0 * (1.0 - NormalDist().cdf(Z_SHARE))
    return NormalDist().inv_cdf(1.0 - alpha / (2.0 * max(1, tries)))


def _edges(b: _Builder) -> None:
    g, e = b.graph, b.graph.edges
    compared, after_all = b.sides(e.at)
    endings = _Endings(b)
    width = len(g.services) + 1
    keys = e.caller * width + e.callee
    for key in np.unique(keys[compared]):
        mine = (keys == key) & compared
        timed, timed_after = b.timed(keys == key, compared, after_all, e.at)
        caller, callee = g.name(int(key // width)), g.name(int(key % width))
        after = after_all[mine]
        seen = e.callee_at[timed]  # the cite covers every call read after the onset, a sparse edge's later ones too
        answered = ~np.isnan(seen)
        if answered.any():
            pick = answered & timed_after if (answered & timed_after).any() else answered
            lo, hi = _window(seen[pick])
            cite = f"traces.jsonl:{caller}->{callee}@{lo}-{hi}"
        else:  # the callee never answered: the caller's client spans are the evidence
            at = e.at[timed]
            lo, hi = _window(at[timed_after] if timed_after.any() else at)
            cite = f"traces.jsonl:{caller}@{lo}-{hi}"
        times: tuple[tuple[TraceKind, np.ndarray], ...] = (
            ("call_latency", e.latency_ms),
            ("network", e.network_ms),
            ("callee_latency", e.callee_ms),
            ("callee_self_time", e.callee_self_ms),
        )
        for kind, ms in times:
            b.times(kind, callee, caller, ms[timed], timed_after, cite, e.at[timed])
        if g.has_status:
            b.share("call_errors", callee, caller, e.failed[mine], after, cite, e.at[mine])
        b.share("unanswered", callee, caller, e.unanswered[mine], after, cite, e.at[mine])
        b.volume("call_volume", callee, caller, mine[compared], after_all[compared], cite)
        _last_call(b, int(key // width), int(key % width), endings, cite)


class _Endings:
    """Per caller, the callee each of its compared calls ended with, and which calls are after the onset."""

    def __init__(self, b: _Builder) -> None:
        g = b.graph
        self.ended_with = np.full(g.calls.service.size, -1, dtype=np.int64)
        self.answered_by = np.full(g.calls.service.size, -1, dtype=np.int64)
        last = g.edges.last & (g.edges.call >= 0)
        self.ended_with[g.edges.call[last]] = g.edges.callee[last]
        self.answered_by[g.edges.call[last]] = g.edges.answer[last]
        compared, self.after = b.sides(g.calls.at)
        self.off_path = _off_path(b) if g.has_status else None
        self.usable = compared & (self.ended_with >= 0)
        self.service = g.calls.service
        self.originated = g.calls.originated
        self.at = g.calls.at
        self._by_caller: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}

    def answers_of(self, caller: int) -> np.ndarray:
        """Per compared call of the caller (as `of` orders them), the callee's call that answered its last call out."""
        return self.answered_by[self.usable & (self.service == caller)]

    def of(self, caller: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The callee each call ended with, whether it is after the onset, whether it raised on its own, when."""
        found = self._by_caller.get(caller)
        if found is None:
            mine = self.usable & (self.service == caller)
            found = self._by_caller[caller] = (
                self.ended_with[mine],
                self.after[mine],
                self.originated[mine],
                self.at[mine],
            )
        return found


def _last_call(b: _Builder, caller: int, callee: int, endings: _Endings, cite: str) -> None:
    """How often the caller's calls ended with a call to this callee: more do when it fails them.

    A caller that gets an error, or an answer it cannot use, stops its own work there; spans
    without any status still show that as calls that make fewer calls out and end at the
    callee. Only the caller's calls that made calls out are counted. With span status, the
    calls in which an error originated in the caller's own spans right after this call
    (`errors_after`) say the same for a caller that has only this one dependency, whose
    calls always end there.
    """
    ended_with, after, raised, at = endings.of(caller)
    names = (b.graph.name(callee), b.graph.name(caller))
    b.share("last_call", *names, ended_with == callee, after, cite, at)
    if b.graph.has_status:
        b.share("errors_after", *names, (ended_with == callee) & raised, after, cite, at)
        _answers_off_path(b, caller, callee, endings, cite)


def _answers_off_path(b: _Builder, caller: int, callee: int, endings: _Endings, cite: str) -> None:
    """Whether the answers the caller raised right after skipped a line the callee's calls always logged.

    A caller raising right after one callee's answers reads two ways: its own bug, or an
    answer it cannot use. The callee's own lines in those very calls tell them apart: a
    wrong return skips a statement its calls always reached (their end line, say), in
    exactly the calls its caller then fails on, while over all its calls the skipped share
    may stay too small to stand out (`log_path`). Compared with the callee's calls before
    the onset, all callers pooled.
    """
    if endings.off_path is None:
        return
    judged, off = endings.off_path
    ended_with, after, raised, _ = endings.of(caller)
    answers = endings.answers_of(caller)[(ended_with == callee) & raised & after]
    answers = answers[answers >= 0]
    answers = answers[judged[answers]]
    before = judged & ~endings.after & (b.graph.calls.service == callee)
    nb, na = int(before.sum()), int(answers.size)
    if nb < MIN_CALLS or na < MIN_CALLS_AFTER:
        return
    stats = _share(int((off & before).sum()), nb, int(off[answers].sum()), na)
    b.add("answers_off_path", b.graph.name(callee), b.graph.name(caller), stats, (nb, na), cite)


def _off_path(b: _Builder) -> tuple[np.ndarray, np.ndarray] | None:
    """Per service call: whether its lines can be judged, and whether it skipped a line it always logged.

    Judged are the compared calls that logged something and did not fail, of an operation
    whose calls before the onset nearly all logged some template (`_always_logged`); off
    its path is such a call that did not log one of those templates.
    """
    logged, calls = b.graph.logged, b.graph.calls
    if logged is None:
        return None
    compared, after = b.sides(calls.at)
    named = np.zeros(calls.service.size, dtype=bool)
    named[logged.call] = True
    fine = compared & named & ~calls.failed & ~calls.originated
    judged = np.zeros(calls.service.size, dtype=bool)
    off = np.zeros(calls.service.size, dtype=bool)
    for template, ops in _always_logged(b, fine, after).items():
        of_ops = fine & np.isin(calls.op, ops)
        hit = np.zeros(calls.service.size, dtype=bool)
        hit[logged.call[logged.op == template]] = True
        judged |= of_ops
        off |= of_ops & ~hit
    return judged, off


def trace_findings(
    spans: Sequence[Span],
    *,
    baseline: tuple[datetime, datetime],
    during: tuple[datetime, datetime],
    logged: Mapping[int, Iterable[str]] | None = None,
    sparse_until: datetime | None = None,
    table: SpanTable | None = None,
) -> list[TraceFinding]:
    """Every service and call edge aggregate, calls starting in `baseline` against calls starting in `during`.

    Spans outside both still link calls (a parent before the baseline's end keeps its children's
    caller); calls that start between the two windows are compared on neither side. `logged`: per
    span index, the log templates its service wrote in it (`context.log_span_paths`).
    `sparse_until`: how far after `during` the times of an edge with too few calls in it are read
    (`_Builder.timed`). `table`: the columns of `spans`, when the caller has read them already.
    """
    late_end = max(during[1], sparse_until or during[1])
    lo, hi = min(baseline[0], during[0]), max(baseline[1], late_end)
    keep = [i for i, s in enumerate(spans) if lo <= s.start <= hi]
    if not keep:
        return []
    moved = {j: logged[i] for j, i in enumerate(keep) if i in logged} if logged else None
    window = (baseline[0].timestamp(), baseline[1].timestamp())
    during_s = (during[0].timestamp(), during[1].timestamp())
    if table is not None:
        graph = table.graph(np.array(keep, dtype=np.int64), moved)
    else:
        graph = span_graph([spans[i] for i in keep], moved)
    builder = _Builder(graph, window, during_s, late_end.timestamp())
    _services(builder)
    _pooled_network(builder)
    _edges(builder)
    builder.judge_sparse()
    return builder.out


def compared_windows(
    window: IncidentWindow, resolution: timedelta = timedelta(0), spans_onset: datetime | None = None
) -> tuple[tuple[datetime, datetime], tuple[datetime, datetime]]:
    """The baseline and the stretch after the onset that spans are compared over.

    The baseline ends where the fault may have begun: an onset found in samples `resolution`
    apart lies up to one interval after the real one (and an onset after the group's last alert
    is none of this incident's; one between its first and last alerts is: a group's first alert
    may have fired on its own). The stretch after it runs up to the alert, when the fault was surely at
    work, as long as metric change points use, and takes in that one interval before the
    onset too: a sampled series shows a change at the first sample after it, so the calls of
    that interval are the fault's first, and often the only ones a sparse trace store kept.
    The time between an early onset estimate and that stretch is on neither side, and so is
    what follows the alert (recovery, mitigation, the next event).

    With no onset from the metrics before the alert, the spans' own change point
    (`trace_onset`, passed as `spans_onset`) is the onset, found at the resolution of the
    calls themselves; only without either is it the window's start, a guess.
    """
    alerted = window.alerted_by
    usable = window.onset is not None and window.onset <= alerted
    if usable and window.onset is not None:
        onset, began = window.onset, window.onset - resolution
    elif spans_onset is not None and spans_onset <= alerted:
        onset = began = spans_onset
    else:
        onset, began = window.start, window.start - resolution
    after = timedelta(seconds=AFTER_SPAN)
    end = min(window.end, max(window.fired_at, onset + after))
    return (window.baseline_start, began), (max(began, end - after - resolution), end)
