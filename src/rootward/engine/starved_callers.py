"""A caller starved of CPU keeps the time its calls took as its own wait (shared by the ranking and the tools)."""

from __future__ import annotations

from collections.abc import Iterable

from rootward.context.trace_evidence import TraceFinding
from rootward.engine.signals import EntityProfile
from rootward.engine.trace_attribution import TraceAttribution

CPU = frozenset({"cpu"})


def starved_callers(
    traces: dict[str, TraceAttribution],
    profiles: dict[str, EntityProfile],
    onset: int | None,
    findings: Iterable[TraceFinding],
) -> None:
    """A caller whose CPU rose more than its callee's is not that callee's victim on its calls' time alone.

    The spans make a service a callee's victim when its latency is time in calls to it
    (`trace_attribution._passed_on`), judged against its own work per call as the spans
    show it. A service starved of CPU sends its requests late and reads the answers late:
    its client spans grow by its own wait, outside the callee's spans, so the growth reads
    as the callee's network or queue. Its own work per call rises too, but with sampled
    traces (a few calls a minute) that rise may not pass its test while the CPU series,
    every second of the pod, says it plainly. The CPU that rose is then the cause the
    spans were too thin to show, and the call's time is the caller's as much as the callee's.
    Applied where the spans' reading is used: the ranking and the traces specialist's tool.
    Only of a callee: a host whose network the slowed calls crossed (`host_network`) is no
    call a starved service makes late, and its guests stay its victims.
    """
    called = {(f.caller, f.entity) for f in findings if f.caller is not None}
    for e, t in traces.items():
        if t.victim_of is None or (e, t.victim_of) not in called:
            continue
        mine, theirs = (
            p.timely_resource_strength(onset, families=CPU) if p is not None else 0.0
            for p in (profiles.get(e), profiles.get(t.victim_of))
        )
        if mine > theirs:
            t.reasons.append(f"its CPU rose: the time its calls to {t.victim_of} took is its own wait as well")
            t.victim_of = None
