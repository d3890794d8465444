"""The supervisor: turns specialists' findings into hypothesis statuses and decides what next.

A hypothesis is *validated* when a direct-evidence specialist (metrics, logs,
traces, changes) validated it and topology does not rule it out; *invalidated* when
direct evidence speaks against it and none for it. Where direct evidence is
silent or split, the model specialist (LLM mode) may decide with a cited
classification; without one a split stays validated (as in rule mode) and
silence is *inconclusive* (or *untested* when nothing reached it). Ranking
stays anchored on the deterministic prior and moves hypotheses only by what
the findings showed.
When nothing is validated and budget remains, the supervisor widens the scope
once (more hops of the graph) and asks for new hypotheses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding, HypothesisStatus
from rootward.engine.budget import Budget

DIRECT = frozenset({"metrics", "logs", "traces", "changes"})
MODEL = "model"  # the LLM specialist (LLM mode only), heard after the direct ones
DirectVerdict = Literal["validated", "invalidated", "split", "silent"]
STATUS_WEIGHT: dict[str, float] = {"validated": 1.0, "inconclusive": 0.75, "untested": 0.6, "invalidated": 0.35}
EXPANDED_HOPS = 4
RIVAL_SHARE = 0.5
# Where a victim of a validated cause lands: just under it, still a reading of its own (its deploy may matter too).
VICTIM_SHARE = 0.9


@dataclass
class Assessment:
    hypothesis: Hypothesis
    status: HypothesisStatus
    score: float
    confidence: float
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def direct_verdict(findings: list[Finding]) -> DirectVerdict:
    """What the direct-evidence specialists and topology say together, before any model is heard."""
    if any(f.specialist == "topology" and f.status == "invalidated" for f in findings):
        return "invalidated"
    said = {f.status for f in findings if f.specialist in DIRECT}
    if "validated" in said and "invalidated" in said:
        return "split"
    if "validated" in said:
        return "validated"
    if "invalidated" in said:
        return "invalidated"
    return "silent"


def status_of(findings: list[Finding]) -> HypothesisStatus:
    if not findings:
        return "untested"
    verdict = direct_verdict(findings)
    if verdict == "validated" or verdict == "invalidated":
        return verdict
    # Where direct evidence is silent or split, the model specialist's cited classification decides.
    model = [f.status for f in findings if f.specialist == MODEL and f.status != "inconclusive"]
    if model:
        return model[-1]
    return "validated" if verdict == "split" else "inconclusive"


def assess(hypotheses: list[Hypothesis], findings: list[Finding]) -> list[Assessment]:
    """Statuses, scores and confidences, best first."""
    out: list[Assessment] = []
    for h in hypotheses:
        fs = [f for f in findings if f.hypothesis_id == h.id]
        status = status_of(fs)
        validated_direct = {f.specialist for f in fs if f.status == "validated" and f.specialist in DIRECT}
        score = h.prior * STATUS_WEIGHT[status] * (1.0 + 0.08 * len(validated_direct))
        out.append(Assessment(h, status, score, 0.0, fs))
    _below_validated_causes(out)
    out.sort(key=lambda a: (-a.score, a.hypothesis.id))
    lead = out[0].score if out else 0.0
    for a in out:
        # Supported but far weaker than the leader: consistent with the evidence, not the explanation.
        if a.status == "validated" and a.score < RIVAL_SHARE * lead:
            a.status = "inconclusive"
            a.notes.append(f"supported, but explains much less than {out[0].hypothesis.id}")
    for a in out:
        rivals = [b.score for b in out if b.hypothesis.entity != a.hypothesis.entity]
        rival = max(rivals, default=0.0)
        rel = a.score / (a.score + rival) if a.score + rival > 0 else 0.0
        breadth = len({f.specialist for f in a.findings if f.status == "validated"})
        conf = 0.15 + 0.5 * rel + 0.07 * breadth + (0.08 if a.status == "validated" else 0.0)
        if a.status != "validated":
            conf *= 0.6
        a.confidence = round(max(0.02, min(0.95, conf)), 3)
    # Best first: a hypothesis ranked below another is never stated with more confidence than it
    # (broader but weaker support otherwise read "weaker, confidence 0.67" under a 0.64 cause).
    for above, a in zip(out, out[1:], strict=False):
        a.confidence = min(a.confidence, above.confidence)
    return out


def _below_validated_causes(out: list[Assessment]) -> None:
    """A hypothesis at a victim ranked below its cause stays below it once the cause is validated.

    A victim shows everything its cause does, seen again, plus what it adds of its own (a
    fresh deploy, errors raised in its spans): more specialists find something to validate
    there. Breadth of support then lifted a redeployed caller failing on a vendor that refused
    connections above the vendor, reversing the ranking's order. Where the ranking put the
    victim first all the same (its own evidence outweighed the discount), or the cause was not
    validated, there is no order to keep.
    """
    causes: dict[str, Assessment] = {}
    for a in out:
        held = causes.get(a.hypothesis.entity)
        if a.status == "validated" and (held is None or a.score > held.score):
            causes[a.hypothesis.entity] = a
    for a in out:
        cause = causes.get(a.hypothesis.victim_of or "")
        if cause is not None and cause.hypothesis.prior > a.hypothesis.prior and a.score >= cause.score:
            a.score = cause.score * VICTIM_SHARE
            a.notes.append(f"its evidence passes on {cause.hypothesis.entity}'s failure, which is validated")


def should_expand(assessments: list[Assessment], budget: Budget, hops: int) -> bool:
    """Widen the scope when nothing is validated, it was not widened yet, and budget remains."""
    if any(a.status == "validated" for a in assessments) or hops >= EXPANDED_HOPS:
        return False
    if budget.exhausted is not None:
        return False
    return budget.elapsed_s() < budget.limits.wall_clock_s * 0.5
