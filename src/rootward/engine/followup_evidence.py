"""What a model answers a follow-up over: everything the investigation and its incident's data hold, ranked.

The ranking is the rule-mode answerer's own retrieval, so a model sees first
exactly what rule mode would have quoted (the changes in the asked window, the
alerts, the best-matching claims and evidence), then the rest by word overlap
with the question and the evidence kind it asks about, then everything else in
the investigation's order. A context budget cuts from the bottom, so the
lines a cut drops are the ones rule mode thought least relevant.

Each line carries the refs it may be cited by: an evidence id (`E3`) for what
the RCA cited, else the fact's bundle cite (`changes.json:deploy-9`), the same
refs a rule-mode answer cites.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from rootward.context.scrub import scrub_text
from rootward.domain.investigation import InvestigationResult
from rootward.engine.followup import Answer, answer, asked_about, overlap
from rootward.engine.followup_context import FollowupContext

CLAIM_BOOST = 0.5  # a claim is the RCA's own reading of its evidence: ahead of an item that matches as well
KIND_BOOST = 2.0  # an item of the kind asked about ("which deploys": changes)
PICKED = 1e6  # what the rule-mode answer cites outranks any overlap score, in the order it cites them


@dataclass(frozen=True)
class Fact:
    """One line a model may read and cite: its text and the refs it is cited by."""

    refs: tuple[str, ...]
    text: str

    @property
    def line(self) -> str:
        return f"[{', '.join(self.refs)}] {self.text}"


def _clock(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass(frozen=True)
class _Candidate:
    fact: Fact
    kinds: frozenset[str]  # the evidence kinds it is about
    claim: bool = False  # one of the RCA's findings, not an item


def _candidates(result: InvestigationResult, ctx: FollowupContext) -> list[_Candidate]:
    """Every fact, in the investigation's order: its findings, its evidence, then the rest of the incident's data."""
    out: list[_Candidate] = []
    for claim in result.claims:
        refs = tuple(e for e in claim.evidence if e in result.evidence)
        if refs:
            kinds = frozenset(result.evidence[e].kind for e in refs)
            out.append(_Candidate(Fact(refs, f"finding: {scrub_text(claim.text)}"), kinds, claim=True))
    for eid, item in result.evidence.items():
        text = f"{item.kind} {item.cite}: {scrub_text(item.excerpt)}".strip().rstrip(":")
        out.append(_Candidate(Fact((eid,), text), frozenset({item.kind})))
    cited = {item.cite for item in result.evidence.values()}
    for change in sorted(ctx.changes, key=lambda c: c.time, reverse=True):
        cite = f"changes.json:{change.id}"
        if cite not in cited:
            text = f"{change.kind} {change.id} on {change.service} at {_clock(change.time)}"
            text += (f" ({change.version})" if change.version else "") + (
                f": {scrub_text(change.summary)}" if change.summary else ""
            )
            out.append(_Candidate(Fact((cite,), f"change {text}"), frozenset({"change"})))
    for alert in sorted(ctx.alerts, key=lambda a: a.starts_at):
        cite = f"alerts.json:{alert.fingerprint}"
        if cite not in cited:
            text = f"alert {alert.name} on {alert.service} ({alert.status}) from {_clock(alert.starts_at)}"
            out.append(_Candidate(Fact((cite,), text), frozenset({"alert"})))
    return out


def ranked_facts(
    result: InvestigationResult, question: str, context: FollowupContext | None = None, *, rule: Answer | None = None
) -> list[Fact]:
    """Every fact, best first: what the rule-mode answer cites, then by overlap with the question, then the rest."""
    ctx = context or FollowupContext(fired_at=result.fired_at)
    picked = rule if rule is not None else answer(result, question, ctx)
    first = {ref: rank for rank, ref in enumerate((*picked.evidence, *picked.cites))}
    asked, wanted = asked_about(question)
    scored: list[tuple[float, int, Fact]] = []
    for order, candidate in enumerate(_candidates(result, ctx)):
        fact = candidate.fact
        if not candidate.claim and fact.refs[0] in first:
            scored.append((PICKED - first[fact.refs[0]], order, fact))
            continue
        score = overlap(asked, fact.text) + (KIND_BOOST if candidate.kinds & wanted else 0.0)
        if candidate.claim and score > 0:
            score += CLAIM_BOOST
        scored.append((score, order, fact))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [fact for _, _, fact in scored]


def incident_lines(result: InvestigationResult, ctx: FollowupContext | None) -> list[str]:
    """What the investigation concluded and when, for the prompt's header (not citable on its own)."""
    lines = [f"Investigation status: {result.status}"]
    top = result.top
    if top is not None:
        lines.append(f"Leading hypothesis: {top.fault_type} on {top.entity} (confidence {top.confidence:.2f})")
    fired = (ctx.fired_at if ctx else None) or result.fired_at
    if fired is not None:
        lines.append(f"First alert fired at {_clock(fired)}")
    if result.onset is not None:
        lines.append(f"Signals began around {_clock(result.onset)}")
    return lines
