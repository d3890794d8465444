"""The `no_fault` verdict: code decides, from the evidence, that nothing is broken now.

An investigation may conclude that there is no current fault, and say why with
cites, for one of these reasons:

* **recovered**: the alert resolved, and every signal that moved is back at its
  baseline before the investigation;
* **known noisy**: the team's notes call this monitor harmless, noisy or flaky,
  or it fired and cleared on its own at least twice before in the data, or the
  level its signal moved to is one the series stood at in separate episodes
  before (the series' habit, `recovery.chronic`);
* **settled earlier**: the only anomaly (or change) preceded the alert and had
  settled by the time it fired, and the alert's own signal did not move;
* **spurious storm**: several services alerted at once on signals that stayed
  at their baselines, and no dependency they share is abnormal.

Everything has to be accounted for: any signal still away from its baseline
(not settled, not the series' habit, not the noise a note vouches for, not a
share too far from harm to matter: `headroom.below_harm`), any
failure log still being written at the end of the window, or any firing alert
whose signal moved or whose data is missing, and there is no verdict. Nor is
there while a specialist validated a cause on evidence the verdict does not
explain: `no_fault` is never published beside a validated cause.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import networkx as nx

from rootward.context.anomaly import Anomaly
from rootward.context.assemble import AlertItem, Context
from rootward.context.chance import chance_of_rise
from rootward.context.log_signals import LogSignal
from rootward.context.recovery import SYMPTOMS, AlertState
from rootward.domain.evidence import EvidenceRef
from rootward.engine.headroom import below_harm
from rootward.engine.known_noise import NoiseNote, harmless_log_phrases, known_harmless, monitor_notes
from rootward.engine.signals import is_bad_direction
from rootward.engine.supervisor import Assessment

# The level at the firing, in robust z against the half hour before: at or above this the alert saw something.
SUPPORT_Z = 3.0
# A failure template last written this close to the window's end is still happening.
LOG_CURRENT_S = 5 * 60
MIN_LOG_LINES = 3
SURGE_P = 1e-3
# Before the alert, around it: how long a settled signal or a log burst counts as "at the firing".
ACTIVE_BEFORE_S = 60
ACTIVE_AFTER_S = 5 * 60
# A change this long before the first alert, with the alert's signal at baseline, is history.
EARLY_CHANGE_S = 15 * 60
# A still-firing alert whose signal has been back at baseline this long (and twice as long as it moved) is over.
LONG_QUIET_S = 10 * 60
STORM_MIN_SERVICES = 3
HISTORY_FIRINGS = 2
DIRECT = frozenset({"metrics", "logs", "model"})


@dataclass(frozen=True)
class Reason:
    code: str  # recovered | known_noisy | settled_earlier | spurious_storm
    text: str  # a clause: what shows there is no current fault
    evidence: tuple[EvidenceRef, ...]


@dataclass(frozen=True)
class Observation:
    """One cited sentence the verdict rests on."""

    text: str
    evidence: tuple[EvidenceRef, ...]


@dataclass(frozen=True)
class NoFaultVerdict:
    reasons: tuple[Reason, ...]
    observations: tuple[Observation, ...] = ()
    explained: frozenset[str] = field(default_factory=frozenset)

    @property
    def headline(self) -> str:
        return f"no current fault: {self.reasons[0].text}"


@dataclass
class _Signals:
    """The context's abnormal evidence, sorted into what is explained and what is still happening."""

    settled: list[tuple[Anomaly, int]] = field(default_factory=list)
    logs: list[LogSignal] = field(default_factory=list)  # failure bursts that stopped
    explained: set[str] = field(default_factory=set)
    current: list[EvidenceRef] = field(default_factory=list)
    harmless: list[Observation] = field(default_factory=list)  # moved shares too far from harm to matter


def _clock(ts: datetime | int) -> str:
    moment = ts if isinstance(ts, datetime) else datetime.fromtimestamp(ts, UTC)
    return moment.astimezone(UTC).strftime("%H:%M")


def _quiet_monitors(ctx: Context, notes: dict[str, list[NoiseNote]]) -> set[tuple[str, str]]:
    """(service, family) pairs whose movement a noisy-monitor note or the monitor's own history explains."""
    out: set[tuple[str, str]] = set()
    for state in ctx.alert_states:
        if notes.get(state.fingerprint) or state.earlier_firings >= HISTORY_FIRINGS:
            out |= {(state.service, f) for f in (state.family, *SYMPTOMS)}
    return out


def _sort_signals(ctx: Context, quiet: set[tuple[str, str]]) -> _Signals:
    out = _Signals()
    by_metric = {(a.service, a.metric): a for a in ctx.anomalies if not a.derived}
    for a in ctx.anomalies:
        if not is_bad_direction(a):
            continue
        base = by_metric.get((a.service, a.metric), a) if a.derived else a
        cite = base.evidence.cite
        if (a.service, a.family) in quiet or cite in ctx.chronic:
            out.explained.add(a.evidence.cite)
        elif (harmless := below_harm(base)) is not None:
            out.explained.add(a.evidence.cite)
            out.harmless.append(Observation(harmless, (a.evidence,)))
        elif cite in ctx.settled:
            out.explained.add(a.evidence.cite)
            out.settled.append((a, ctx.settled[cite]))
        else:
            out.current.append(a.evidence)
    phrases = harmless_log_phrases(ctx.knowledge)
    end = ctx.window.end
    for s in ctx.logs:
        if not (s.changed and s.is_failure and s.onset_count >= MIN_LOG_LINES):
            out.explained.add(s.evidence.cite)  # too few lines, or not a change: no sign of a fault now
            continue
        if known_harmless(s, phrases) is not None or not _surprising(s, ctx):
            out.explained.add(s.evidence.cite)
        elif s.last_ts is not None and (end - s.last_ts).total_seconds() > LOG_CURRENT_S:
            out.explained.add(s.evidence.cite)
            out.logs.append(s)
        else:
            out.current.append(s.evidence)
    return out


def _surprising(s: LogSignal, ctx: Context) -> bool:
    """Whether a template's count since the onset is more than its baseline rate makes likely by chance.

    A background line that shows a few times an hour can "surge" threefold, or
    first show, in a quarter of an hour by chance alone. Given the template's
    lines in both windows, each line falls in the onset window with the share of
    time that window has, if nothing changed (the exact test of two Poisson
    rates); the count is news only when that binomial tail is below `SURGE_P`.
    """
    w = ctx.window
    base_s = max((w.baseline_end - w.baseline_start).total_seconds(), 1.0)
    onset_s = max((w.end - w.baseline_end).total_seconds(), 1.0)
    return chance_of_rise(s.baseline_count, s.onset_count, base_s, onset_s) < SURGE_P


def _active_at(signals: _Signals, t: datetime) -> list[EvidenceRef]:
    """The settled signals and stopped log bursts that were still going when an alert fired at `t`."""
    at = int(t.timestamp())
    refs = [
        a.evidence for a, until in signals.settled if a.onset <= at + ACTIVE_AFTER_S and until > at - ACTIVE_BEFORE_S
    ]
    for s in signals.logs:
        first, last = s.first_ts, s.last_ts
        after, before = timedelta(seconds=ACTIVE_AFTER_S), timedelta(seconds=2 * ACTIVE_BEFORE_S)
        if first is not None and last is not None and first <= t + after and last >= t - before:
            refs.append(s.evidence)
    return refs


def _item(ctx: Context, state: AlertState) -> AlertItem:
    return next(a for a in ctx.alerts if a.fingerprint == state.fingerprint)


def _long_over(ctx: Context, signals: _Signals, state: AlertState) -> Reason | None:
    """A still-firing alert whose cause is long over: everything that moved at the firing settled,
    at least `LONG_QUIET_S` before the data ends and for at least twice as long as it lasted."""
    at = int(state.starts_at.timestamp())
    moving = [
        (a.evidence, a.onset, u)
        for a, u in signals.settled
        if a.onset <= at + ACTIVE_AFTER_S and u > at - ACTIVE_BEFORE_S
    ]
    active = set(_active_at(signals, state.starts_at))
    moving += [
        (s.evidence, int(s.first_ts.timestamp()), int(s.last_ts.timestamp()))
        for s in signals.logs
        if s.evidence in active and s.first_ts is not None and s.last_ts is not None
    ]
    if not moving or ctx.data_end is None:
        return None
    end = int(ctx.data_end.timestamp())
    for _, began, until in moving:
        if end - until < LONG_QUIET_S or end - until < 2 * (until - began):
            return None
    ref, _, until = max(moving, key=lambda m: (m[0].kind == "metric", m[2]))
    text = (
        f"{state.name} on {state.service} is still firing, but what it fired on ({ref.excerpt}) was back at "
        f"its baseline by {_clock(max(m[2] for m in moving))}, {(end - until) // 60} min before the data ends"
    )
    return Reason("recovered", text, (ref, state.evidence))


def _fired(state: AlertState) -> Observation:
    """When the alert fired, and what its own signal showed then (when the data has it)."""
    text = f"{state.name} on {state.service} fired at {_clock(state.starts_at)}"
    if state.signal is None:
        return Observation(text, (state.evidence,))
    return Observation(f"{text}; {state.signal.excerpt}", (state.evidence, state.signal))


def _account(
    ctx: Context, signals: _Signals, notes: dict[str, list[NoiseNote]]
) -> tuple[list[Reason], list[AlertState], list[Observation]] | None:
    """Each firing alert resolved, known noisy, or fired on nothing; None when one saw something real."""
    reasons: list[Reason] = []
    silent: list[AlertState] = []
    seen: list[Observation] = []
    for state in ctx.alert_states:
        where = f"{state.name} on {state.service}"
        if state.resolved_at is not None:
            seen.append(Observation(f"{where} fired at {_clock(state.starts_at)} and resolved at "
                                    f"{_clock(state.resolved_at)}", (state.evidence,)))  # fmt: skip
            continue
        if notes.get(state.fingerprint):
            note = notes[state.fingerprint][0]
            text = f'the team\'s notes call {where} noisy or harmless ("{note.sentence}")'
            reasons.append(Reason("known_noisy", text, (note.evidence, state.evidence)))
            seen.append(_fired(state))
            continue
        if state.earlier_firings >= HISTORY_FIRINGS:
            text = f"{where} fired and cleared on its own {state.earlier_firings} times before this firing"
            reasons.append(Reason("known_noisy", text, (state.evidence,)))
            seen.append(_fired(state))
            continue
        if state.signal_z is None or state.signal is None:
            return None  # we cannot see what it watches
        if (habit := _habitual_signal(ctx, state)) is not None:
            text = (
                f"{where} fired on {habit.metric}, which had stood at this level in separate episodes "
                "before in the data: the series' habit, which this monitor trips on"
            )
            reasons.append(Reason("known_noisy", text, (habit.evidence, state.evidence)))
            seen.append(_fired(state))
            continue
        if state.signal_z >= SUPPORT_Z or _active_at(signals, state.starts_at):
            over = _long_over(ctx, signals, state)
            if over is None:
                return None  # it saw something that may still be going on
            reasons.append(over)
            seen.append(_fired(state))
            continue
        silent.append(state)
        seen.append(_fired(state))
    return reasons, silent, seen


def _habitual_signal(ctx: Context, state: AlertState) -> Anomaly | None:
    """The alert's own signal, when what it moved to is a level it stood at in episodes before (`recovery.chronic`).

    A monitor whose threshold sits inside a series' recurring bursts fires on each: the data
    showing the same level come and go before says so as an alert history would.
    """
    if state.signal is None:
        return None
    series = state.signal.cite.partition("@")[0]
    return next(
        (a for a in ctx.anomalies if a.evidence.cite in ctx.chronic and a.evidence.cite.partition("@")[0] == series),
        None,
    )


def _recovered(ctx: Context, signals: _Signals) -> list[Reason]:
    resolved = [s for s in ctx.alert_states if s.resolved_at is not None]
    if not resolved:
        return []
    last = max(s.resolved_at for s in resolved if s.resolved_at is not None)
    names = ", ".join(dict.fromkeys(f"{s.name} on {s.service}" for s in resolved))
    refs = [s.evidence for s in resolved] + [a.evidence for a, _ in signals.settled[:3]]
    back = max([until for _, until in signals.settled], default=None)
    tail = f"; what moved was back at its baseline by {_clock(back)}" if back else "; its signals are at their baseline"
    return [Reason("recovered", f"{names} resolved by {_clock(last)}{tail}", tuple(refs))]


def _shares_abnormal_dependency(ctx: Context, services: list[str], signals: _Signals) -> bool:
    g = ctx.topology.graph()
    abnormal = {a.service for a in ctx.anomalies} | {s.service for s in signals.logs} | {a.service for a in ctx.earlier}
    reach = [set(nx.descendants(g, s)) if s in g else set() for s in services]
    shared = {e for i, r in enumerate(reach) for other in reach[i + 1 :] for e in r & other}
    return bool(shared & abnormal)


def _storm(ctx: Context, silent: list[AlertState], signals: _Signals) -> list[Reason]:
    services = list(dict.fromkeys(s.service for s in silent))
    if len(services) < STORM_MIN_SERVICES or _shares_abnormal_dependency(ctx, services, signals):
        return []
    span = (max(s.starts_at for s in silent) - min(s.starts_at for s in silent)).total_seconds() // 60
    text = (
        f"{len(silent)} alerts fired on {', '.join(services[:6])} within {int(span)} min on signals that stayed at "
        "their baselines, and no dependency they share is abnormal"
    )
    refs = [s.evidence for s in silent[:4]] + [s.signal for s in silent[:4] if s.signal is not None]
    return [Reason("spurious_storm", text, tuple(refs))]


def _settled_earlier(ctx: Context, signals: _Signals, fired: datetime) -> list[Reason]:
    """An anomaly or change that came and went before the first alert: the only event in the data."""
    at = int(fired.timestamp())
    early = [(a, a.end) for a in ctx.earlier] + [(a, u) for a, u in signals.settled if u <= at - ACTIVE_BEFORE_S]
    if early:
        a, until = min(early, key=lambda x: x[0].onset)
        lead = (at - until) // 60
        text = f"the only anomaly ({a.evidence.excerpt}) had settled by {_clock(until)}, {lead} min before the alert"
        return [Reason("settled_earlier", text, (a.evidence,))]
    changes = [c for c in ctx.changes if (fired - c.time).total_seconds() >= EARLY_CHANGE_S]
    # Since then, only what cannot be harm: a share far from it, the series' habit, a monitor a note
    # calls noisy, or a move the good way (connections in use falling), as `_sort_signals` reads them.
    calm = signals.explained - {a.evidence.cite for a, _ in signals.settled}
    if changes and all(a.evidence.cite in calm for a in ctx.anomalies if is_bad_direction(a)):
        c = max(changes, key=lambda c: c.time)
        lead = int((fired - c.time).total_seconds() // 60)
        since = "nothing that could do harm has moved since" if ctx.anomalies else "nothing has moved since"
        text = (
            f"the only change ({c.kind} {c.id} of {c.service} at {_clock(c.time)}) landed {lead} min before the alert, "
            f"and {since}"
        )
        return [Reason("settled_earlier", text, (c.evidence,))]
    return []


def _validated_elsewhere(assessments: list[Assessment], explained: set[str]) -> bool:
    """Whether a specialist validated a cause on evidence the verdict does not account for."""
    for a in assessments:
        if a.status != "validated":
            continue
        for f in a.findings:
            direct = f.status == "validated" and f.specialist in DIRECT
            if direct and any(e.kind in ("metric", "log", "trace") and e.cite not in explained for e in f.evidence):
                return True
    return False


def decide_no_fault(ctx: Context, assessments: list[Assessment]) -> NoFaultVerdict | None:
    """The no-fault verdict with its reasons, or None when something is (or may be) broken now."""
    if not ctx.alert_states or not any(ctx.telemetry.get(s) for s in ctx.alerting_services):
        return None
    notes = {s.fingerprint: monitor_notes(_item(ctx, s), ctx.knowledge) for s in ctx.alert_states}
    signals = _sort_signals(ctx, _quiet_monitors(ctx, notes))
    if signals.current:
        return None
    accounted = _account(ctx, signals, notes)
    if accounted is None:
        return None
    reasons, silent, seen = accounted
    reasons += _recovered(ctx, signals)
    if silent:
        fired = min(s.starts_at for s in silent)
        explained_silence = _storm(ctx, silent, signals) or _settled_earlier(ctx, signals, fired)
        if not explained_silence:
            return None  # an alert fired on a flat signal with nothing to say why: we cannot tell
        reasons += explained_silence
    if not reasons:
        return None
    explained = signals.explained | {a.evidence.cite for a in ctx.earlier}
    if _validated_elsewhere(assessments, explained):
        return None
    for a, until in signals.settled[:4]:
        seen.append(Observation(f"{a.evidence.excerpt}; back at its baseline by {_clock(until)}", (a.evidence,)))
    seen += signals.harmless[:4]
    return NoFaultVerdict(tuple(reasons), tuple(seen), frozenset(explained))
