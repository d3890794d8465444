"""The verifier: code, not a model, decides whether an analysis may be published.

Checks, in order: every evidence id named exists and its cite resolves; no two
validated findings contradict each other (the same series moving up in one and
down or flat in another); each confidence is calibrated to the breadth of its
evidence (one log line from one replica cannot carry 0.95). Problems are
repaired once (unresolvable evidence dropped, contradicting findings demoted
to inconclusive, confidences capped); whatever remains is published as a
noted failure, never silently.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rootward.bundle.cites import CiteResolver
from rootward.context.anomaly import SYMPTOM_FAMILIES, family_of
from rootward.domain.evidence import EvidenceRef
from rootward.domain.investigation import Finding, InvestigationResult, Verification
from rootward.engine.supervisor import Assessment, status_of

CONTEXT_KINDS = frozenset({"topology", "knowledge", "alert"})  # where a signal sits, not a signal
SYMPTOMS_ONLY_CAP = 0.65
_DIRECTION = re.compile(r"\b(up|down) from\b|\bdid not move\b")


def _series_directions(f: Finding) -> dict[str, str]:
    out: dict[str, str] = {}
    for e in f.evidence:
        if e.kind != "metric":
            continue
        m = _DIRECTION.search(e.excerpt)
        if m:
            out[e.cite.split("@", 1)[0]] = m.group(1) or "flat"
    return out


def contradictions(findings: list[Finding]) -> list[tuple[Finding, Finding, str]]:
    """Pairs of validated findings that say opposite things about the same series."""
    validated = [f for f in findings if f.status == "validated"]
    out = []
    for i, a in enumerate(validated):
        da = _series_directions(a)
        for b in validated[i + 1 :]:
            for series, direction in _series_directions(b).items():
                if series in da and da[series] != direction:
                    out.append((a, b, series))
    return out


def _says_why(ref: EvidenceRef) -> bool:
    """Evidence of a mechanism (a resource, a log line, a change), not just of a symptom."""
    if ref.kind in CONTEXT_KINDS:
        return False
    if ref.kind != "metric":
        return True
    metric = ref.cite.partition("/")[2].partition("@")[0]
    return family_of(metric) not in SYMPTOM_FAMILIES


def breadth_cap(findings: list[Finding]) -> float:
    """The most confidence this much evidence can carry."""
    validated = [f for f in findings if f.status == "validated"]
    cites = {e.cite for f in validated for e in f.evidence}
    kinds = {e.kind for f in validated for e in f.evidence} - CONTEXT_KINDS
    if not cites:
        return 0.45
    if len(cites) == 1:
        return 0.55
    if not any(_says_why(e) for f in validated for e in f.evidence):
        # Only symptoms (slower, failing, busier): the entity, a callee or a dependency could all
        # look like this, so a human should look before anything acts on it.
        return SYMPTOMS_ONLY_CAP
    if len(kinds) <= 1:
        return 0.75
    if len(kinds) == 2:
        return 0.9
    return 0.95


def _check(assessments: list[Assessment], resolver: CiteResolver) -> list[str]:
    problems = []
    for a in assessments:
        for e in a.hypothesis.evidence:
            if not resolver.resolves(e.cite):
                problems.append(f"{a.hypothesis.id}: cite does not resolve: {e.cite}")
        for f in a.findings:
            for e in f.evidence:
                if not resolver.resolves(e.cite):
                    problems.append(f"{a.hypothesis.id} ({f.specialist}): cite does not resolve: {e.cite}")
        for x, y, series in contradictions(a.findings):
            problems.append(f"{a.hypothesis.id}: {x.specialist} and {y.specialist} contradict each other on {series}")
        cap = breadth_cap(a.findings)
        if a.confidence > cap + 1e-9:
            problems.append(
                f"{a.hypothesis.id}: confidence {a.confidence:.2f} exceeds what its evidence carries ({cap:.2f})"
            )
    return problems


def _repair(assessments: list[Assessment], resolver: CiteResolver) -> list[str]:
    repairs = []
    for a in assessments:
        kept = [e for e in a.hypothesis.evidence if resolver.resolves(e.cite)]
        if len(kept) != len(a.hypothesis.evidence):
            repairs.append(f"{a.hypothesis.id}: dropped {len(a.hypothesis.evidence) - len(kept)} unresolvable cite(s)")
            a.hypothesis.evidence = kept
        fixed: list[Finding] = []
        for f in a.findings:
            ev = tuple(e for e in f.evidence if resolver.resolves(e.cite))
            if len(ev) != len(f.evidence):
                status = f.status if ev or f.status != "validated" else "inconclusive"
                repairs.append(f"{a.hypothesis.id} ({f.specialist}): dropped unresolvable evidence")
                f = replace(f, evidence=ev, status=status)
            fixed.append(f)
        for x, y, series in contradictions(fixed):
            fixed = [replace(f, status="inconclusive") if f in (x, y) else f for f in fixed]
            repairs.append(
                f"{a.hypothesis.id}: demoted {x.specialist} and {y.specialist} findings that contradict on {series}"
            )
        a.findings = fixed
        new_status = status_of(fixed)
        if new_status != a.status:
            repairs.append(f"{a.hypothesis.id}: status {a.status} -> {new_status}")
            a.status = new_status
        cap = breadth_cap(fixed)
        if a.confidence > cap:
            repairs.append(f"{a.hypothesis.id}: confidence {a.confidence:.2f} capped at {cap:.2f}")
            a.confidence = cap
    return repairs


def verify(assessments: list[Assessment], resolver: CiteResolver) -> Verification:
    """Check, repair once, check again. Mutates the assessments it repairs."""
    v = Verification(problems=_check(assessments, resolver))
    if v.problems:
        v.repairs = _repair(assessments, resolver)
        v.remaining = _check(assessments, resolver)
    return v


def check_result(result: InvestigationResult, resolver: CiteResolver) -> list[str]:
    """The published result's own mechanical checks: ids exist, cites resolve, every claim is cited."""
    problems = [f"dangling evidence id: {eid}" for eid in result.dangling_evidence_ids()]
    problems += [
        f"{eid}: cite does not resolve: {e.cite}" for eid, e in result.evidence.items() if not resolver.resolves(e.cite)
    ]
    problems += [f"claim without evidence: {c.text}" for c in result.claims if not c.evidence]
    problems += [f"ruled-out line without evidence: {r.reason}" for r in result.ruled_out if not r.evidence]
    return problems


def repair_result(result: InvestigationResult, resolver: CiteResolver) -> InvestigationResult:
    """Drop unresolvable evidence and the ids that pointed at it; drop claims left uncited."""
    good = {eid: e for eid, e in result.evidence.items() if resolver.resolves(e.cite)}
    hypotheses = [h.model_copy(update={"evidence": [e for e in h.evidence if e in good]}) for h in result.hypotheses]
    claims = [c.model_copy(update={"evidence": [e for e in c.evidence if e in good]}) for c in result.claims]
    excluded = [r.model_copy(update={"evidence": [e for e in r.evidence if e in good]}) for r in result.ruled_out]
    return result.model_copy(
        update={
            "evidence": good,
            "hypotheses": hypotheses,
            "claims": [c for c in claims if c.evidence],
            "ruled_out": [r for r in excluded if r.evidence],
        }
    )
