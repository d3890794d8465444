"""Metric change scores as evidence in the hypothesis priors.

`context.metric_change` gives each entity its best robust before/after change
around the incident's joint onset (BARO's idea). Here that becomes one term of
an entity's own evidence: strong when the change is large in robust units
*and* close to the largest change of the incident, so the entity whose series
moved most, in units of its own normal variation, leads, while a hub whose
change is smaller in those units does not, however loud it is in raw numbers.

It is also the fault type of last resort: an entity whose only evidence is a
metric change (coarse samples, where the per-series change points find
nothing) is read by the family of the series that moved.
"""

from __future__ import annotations

import networkx as nx

from rootward.context.anomaly import SYMPTOM_FAMILIES, family_of
from rootward.context.assemble import Context
from rootward.context.metric_change import MIN_CHANGE, MetricChange, SeriesMove
from rootward.context.metric_names import is_headroom, is_success_share
from rootward.domain.faults import FAMILY_FAULTS
from rootward.engine.signals import strength
from rootward.engine.signatures import Signature

# Weight of the metric change term in an entity's own evidence (hypotheses.score_entities): half
# that of a resource anomaly, as it is a second reading of the same series the anomaly terms read.
METRIC_CHANGE_WEIGHT = 0.25
# A change measured against a split the data did not confirm (no joint onset found) counts this much.
UNCONFIRMED_ONSET = 0.5
# A symptom change passed on from an abnormal dependency counts this much (as hypotheses.VICTIM_FACTOR).
PASSED_ON = 0.35
# A signature read from the family alone is a weak one: any specific evidence outranks it.
FAMILY_SIGNATURE_SCORE = 0.3
# A CPU at least this many times its level before the onset is doing that much more work: a delay
# on the path makes a service wait, not work, so such a rise is the first reading of its latency.
WORKING_HARDER = 2.0


def metric_change_strengths(
    ctx: Context, graph: nx.DiGraph, abnormal: set[str], unchanged_in_traces: frozenset[str] = frozenset()
) -> dict[str, float]:
    """Per entity, 0..1: how large its best change is (log scale) times how close to the incident's largest.

    Latency, errors and traffic travel up the call graph: when the entity's best
    series is one of those and something it depends on is abnormal too (by other
    evidence, or by a metric change of its own), the change is most likely passed
    on, and counts PASSED_ON as much. The same holds when the entity's spans were
    traced and the trace attribution found no change of its own
    (`unchanged_in_traces`): the spans measure that latency with attribution, the
    series without. A resource that moved is its own. Against
    an onset the data did not confirm, every change counts UNCONFIRMED_ONSET.
    """
    changes = ctx.metric_changes
    top = max((m.score for m in changes), default=0.0)
    if top < MIN_CHANGE:
        return {}
    moved = {m.entity for m in changes if m.score >= MIN_CHANGE}
    out = {}
    for m in changes:
        value = strength(m.score, MIN_CHANGE) * m.score / top
        if ctx.metric_onset is not None and not ctx.metric_onset.detected:
            value *= UNCONFIRMED_ONSET
        deps = set(graph.successors(m.entity)) if m.entity in graph else set()
        passed_on = deps & (abnormal | moved) or m.entity in unchanged_in_traces
        if family_of(m.metric) in SYMPTOM_FAMILIES and passed_on:
            value *= PASSED_ON
        out[m.entity] = value
    return out


def metric_change_of(ctx: Context, entity: str) -> MetricChange | None:
    return next((m for m in ctx.metric_changes if m.entity == entity), None)


def family_signatures(change: MetricChange) -> list[Signature]:
    """The fault type the family of the most-moved series suggests, citing that series.

    When that series is a symptom (latency, errors, traffic) and a resource of the same entity
    moved the harmful way too, past the same bar, that resource's fault is the second reading:
    a CPU that rose a little with the latency may be what slowed it, or only a sign of the same
    cause (more requests in flight while a delay holds them), so it does not take the first
    place. A CPU that rose to WORKING_HARDER times its level does: the service is doing that
    much more work, which a delay on its path does not make it do.
    """
    fault = _family_fault(change)
    if fault is None or change.score < MIN_CHANGE:
        return []
    moved = f"its {change.metric} moved most, {change.score:.1f} interquartile ranges from before the onset"
    out = [Signature(fault, FAMILY_SIGNATURE_SCORE, [change.evidence], [moved])]
    cause = _moved_resource(change) if family_of(change.metric) in SYMPTOM_FAMILIES else None
    if cause is None or (second := FAMILY_FAULTS[family_of(cause.metric)]) == fault:
        return out
    reason = f"or its {cause.metric}, which moved {cause.score:.1f} interquartile ranges with it"
    if family_of(cause.metric) == "cpu" and (cause.ratio or 0.0) >= WORKING_HARDER:
        reason = f"its {cause.metric} rose x{cause.ratio:.1f} with it: the work took more CPU, not only longer"
        first = Signature(second, FAMILY_SIGNATURE_SCORE, [cause.evidence, change.evidence], [reason])
        return [first, Signature(fault, FAMILY_SIGNATURE_SCORE * 0.5, [change.evidence], [moved])]
    out.append(Signature(second, FAMILY_SIGNATURE_SCORE * 0.5, [cause.evidence, change.evidence], [reason]))
    return out


def _family_fault(change: MetricChange) -> str | None:
    """The fault the series' family names, when it moved the way that fault moves it.

    Latency that fell, errors that fell, CPU that fell are no fault's sign. Requests that fell
    are: they stopped reaching the entity (refused, a failed handshake, unreachable), which is
    the dependency down, not a surge.
    """
    family = family_of(change.metric)
    if family == "traffic":
        return FAMILY_FAULTS[family] if change.direction == "up" else "dependency_down"
    harmful = "down" if is_headroom(change.metric) or is_success_share(change.metric) else "up"
    return FAMILY_FAULTS.get(family) if change.direction == harmful else None


def _moved_resource(change: MetricChange) -> SeriesMove | None:
    """The entity's most-moved resource series that went the harmful way past the change bar, if any."""
    for other in change.others:  # strongest first
        family = family_of(other.metric)
        harmful = "down" if is_headroom(other.metric) else "up"
        if other.score < MIN_CHANGE:
            return None
        if family not in SYMPTOM_FAMILIES and family in FAMILY_FAULTS and other.direction == harmful:
            return other
    return None
