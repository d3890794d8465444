"""Ruled out: each alternative the specialists examined and excluded, with what was checked and why.

"Show me what you ruled out" is what makes an answer trustworthy at a glance.
Each line is built from typed evidence and cites it:

* a specialist's invalidating finding (its own evidence, or the flat series it
  checked: "cpu_usage on db did not move beyond its baseline");
* a signal that began well after the leading cause's trouble: a consequence;
* an entity whose own failures name a dependency: a symptom passing it on;
* under a no-fault verdict, every hypothesis, with the settled signal it rested on.

A reason with nothing to cite is left out rather than asserted.
"""

from __future__ import annotations

from dataclasses import dataclass

from rootward.context.assemble import Context
from rootward.domain.evidence import EvidenceRef, metric_cite
from rootward.engine.lead import since
from rootward.engine.specialists.base import EXPECTED_FAMILIES
from rootward.engine.supervisor import Assessment
from rootward.engine.verdict import NoFaultVerdict

MAX_RULED_OUT = 5
LATE_S = 120  # a signal this long after the leading cause's own began is its consequence


@dataclass(frozen=True)
class Exclusion:
    entity: str
    fault_type: str
    reason: str
    evidence: tuple[EvidenceRef, ...]


def _flat_series(ctx: Context, a: Assessment) -> list[EvidenceRef]:
    """The series the metrics specialist found flat, cited over the incident window."""
    h = a.hypothesis
    families = EXPECTED_FAMILIES.get(h.fault_type, frozenset())
    start, end = int(ctx.window.start.timestamp()), int(ctx.window.end.timestamp())
    return [
        EvidenceRef("metric", metric_cite(s.service, s.metric, start, end),
                    f"{s.service} {s.metric} at {s.after:.4g} (baseline {s.baseline:.4g})")
        for s in ctx.series
        if s.service == h.entity and s.family in families and "/" not in s.metric
    ][:2]  # fmt: skip


def _from_findings(ctx: Context, a: Assessment) -> Exclusion | None:
    h = a.hypothesis
    for f in a.findings:
        if f.status != "invalidated":
            continue
        refs = list(f.evidence) or (_flat_series(ctx, a) if f.specialist == "metrics" else [])
        if f.specialist == "topology" and not refs:
            refs = [x.evidence for x in ctx.alerts[:2]]
        if refs:
            return Exclusion(h.entity, h.fault_type, f"{f.specialist}: {f.summary}", tuple(refs))
    return None


def _consequence(ctx: Context, a: Assessment, lead: Assessment) -> Exclusion | None:
    h, cause = a.hypothesis, lead.hypothesis
    began = since(ctx, cause.entity)
    if began is None or h.entity == cause.entity:
        return None
    own = [x for x in ctx.anomalies if x.service == h.entity and x.evidence in h.evidence]
    if not own or min(x.onset for x in own) < began + LATE_S:
        return None
    first = min(own, key=lambda x: x.onset)
    minutes = (first.onset - began) // 60
    reason = f"{first.evidence.excerpt}: it began {minutes} min after {cause.entity}'s trouble, a consequence"
    return Exclusion(h.entity, h.fault_type, reason, (first.evidence,))


def _victim(a: Assessment) -> Exclusion | None:
    h = a.hypothesis
    pointer = next((r for r in h.rationale if r.startswith("its failures point at its dependency ")), None)
    refs = [e for e in h.evidence if e.kind in ("log", "metric")][:2]
    if pointer is None or not refs:
        return None
    dependency = pointer.rsplit(" ", 1)[-1]
    return Exclusion(
        h.entity, h.fault_type, f"its failures point at its dependency {dependency}: a symptom", tuple(refs)
    )


def _settled(a: Assessment, verdict: NoFaultVerdict) -> Exclusion | None:
    h = a.hypothesis
    refs = [e for e in h.evidence if e.cite in verdict.explained][:2]
    if not refs:
        refs = [e for r in verdict.reasons for e in r.evidence][:1]
    if not refs:
        return None
    return Exclusion(h.entity, h.fault_type, f"no current fault: {verdict.reasons[0].text}", tuple(refs))


def ruled_out(ctx: Context, assessments: list[Assessment], verdict: NoFaultVerdict | None) -> list[Exclusion]:
    """One cited exclusion per alternative examined and set aside, best-ranked first."""
    out: list[Exclusion] = []
    if verdict is not None:
        out = [x for a in assessments if (x := _settled(a, verdict)) is not None]
        return out[:MAX_RULED_OUT]
    if not assessments:
        return []
    lead = assessments[0]
    for a in assessments[1:]:
        if a.hypothesis.entity == lead.hypothesis.entity and a.status != "invalidated":
            continue  # another reading of the same entity's trouble is an alternative, not an exclusion
        found = _from_findings(ctx, a) if a.status == "invalidated" else None
        found = found or _consequence(ctx, a, lead) or _victim(a)
        if found is not None and all((x.entity, x.fault_type) != (found.entity, found.fault_type) for x in out):
            out.append(found)
    return out[:MAX_RULED_OUT]
