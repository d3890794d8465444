"""The RCA: claims (one sentence each, every one cited), the result JSON and its Markdown.

In rule mode the prose comes from templates over the typed findings; a
reasoner may add prose claims, which are kept only if every evidence id they
name exists, and the templated raw facts always stay beside them.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rootward.context.assemble import Context
from rootward.domain.evidence import EvidenceRef
from rootward.domain.faults import FAULT_WORDS
from rootward.domain.headline import Headline, headline, hypothesis_label, onset_text
from rootward.domain.investigation import (
    Claim,
    ConfidenceGates,
    EvidenceItem,
    HypothesisOut,
    InvestigationResult,
    RuledOut,
    SummarySource,
    Timing,
)
from rootward.domain.proposal_state import ProposalState, proposal_states
from rootward.engine.lead import first_signs, lead_sentence
from rootward.engine.ruled_out import ruled_out
from rootward.engine.supervisor import Assessment
from rootward.engine.verdict import NoFaultVerdict

# How an alternative reads beside the leading hypothesis: "validated" there means "consistent
# with the evidence, but weaker", not a second root cause.
ALTERNATIVE_WORDS: dict[str, str] = {
    "validated": "consistent with the evidence but weaker",
    "invalidated": "ruled out by the evidence",
    "inconclusive": "not decided by the evidence",
    "untested": "not tested",
}
MAX_ALTERNATIVES = 3
# Under a no-fault verdict every hypothesis is ruled out; none keeps more confidence than this.
NO_FAULT_HYPOTHESIS_CAP = 0.1


class EvidenceBook:
    """Assigns stable ids (E1, E2...) to evidence, one id per cite."""

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}
        self.items: dict[str, EvidenceItem] = {}

    def add(self, ref: EvidenceRef) -> str:
        if ref.cite not in self._ids:
            eid = f"E{len(self._ids) + 1}"
            self._ids[ref.cite] = eid
            self.items[eid] = EvidenceItem(kind=ref.kind, cite=ref.cite, excerpt=ref.excerpt[:300])
        return self._ids[ref.cite]

    def ids(self, refs: list[EvidenceRef] | tuple[EvidenceRef, ...]) -> list[str]:
        return list(dict.fromkeys(self.add(r) for r in refs))


def _clock(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%H:%M")


def build_result(
    ctx: Context,
    assessments: list[Assessment],
    gate: ConfidenceGates | None,
    *,
    status: str,
    gaps: list[str],
    first_hypothesis_ms: int | None,
    total_ms: int,
    extra_claims: list[Claim] | None = None,
    verdict: NoFaultVerdict | None = None,
) -> InvestigationResult:
    """The result JSON; with a no-fault verdict its claims say why and every hypothesis stands ruled out."""
    book = EvidenceBook()
    hypotheses: list[HypothesisOut] = []
    for i, a in enumerate(assessments):
        refs = list(a.hypothesis.evidence) + [e for f in a.findings if f.status == "validated" for e in f.evidence]
        confidence = gate.confidence if (i == 0 and gate is not None and verdict is None) else a.confidence
        hypotheses.append(
            HypothesisOut(
                id=a.hypothesis.id,
                entity=a.hypothesis.entity,
                fault_type=a.hypothesis.fault_type,
                status="invalidated" if verdict is not None else a.status,
                confidence=min(confidence, NO_FAULT_HYPOTHESIS_CAP) if verdict is not None else confidence,
                evidence=book.ids(refs),
            )
        )
    if verdict is not None:
        claims = no_fault_claims(verdict, book)
        gate = ConfidenceGates(confidence=0.0, analysis_only=True, needs_human=False, evidence_missing=False)
        extra_claims = None
    else:
        claims = template_claims(ctx, assessments, book, gate)
    if extra_claims:
        claims = [c for c in extra_claims if c.evidence and all(e in book.items for e in c.evidence)] + claims
    excluded = [
        RuledOut(entity=x.entity, fault_type=x.fault_type, reason=x.reason, evidence=book.ids(list(x.evidence)))
        for x in ruled_out(ctx, assessments, verdict)
    ]
    result = InvestigationResult(
        bundle=ctx.bundle,
        status=status,  # type: ignore[arg-type]
        hypotheses=hypotheses,
        claims=claims,
        evidence=book.items,
        gaps=gaps,
        timing=Timing(first_hypothesis_ms=first_hypothesis_ms, total_ms=total_ms),
        gates=gate,
        summary_source=summary_source_of(claims),
        no_fault=verdict is not None,
        ruled_out=excluded,
        fired_at=ctx.window.fired_at,
    )
    earliest = _earliest_sign(ctx, assessments[0].hypothesis.entity) if assessments else None
    if earliest is not None:
        result.onset, result.onset_cite = earliest[0], earliest[1].cite
    return result


def no_fault_claims(verdict: NoFaultVerdict, book: EvidenceBook) -> list[Claim]:
    """The lead sentence says there is no current fault and why; the rest are the cited facts behind it."""
    lead, *more = verdict.reasons
    claims = [Claim(text=_sentence(verdict.headline), evidence=book.ids(list(lead.evidence)))]
    claims += [Claim(text=_sentence(r.text), evidence=book.ids(list(r.evidence))) for r in more]
    claims += [
        Claim(text=_sentence(o.text, upper=False), evidence=book.ids(list(o.evidence))) for o in verdict.observations
    ]
    return [c for c in claims if c.evidence]


def _sentence(text: str, *, upper: bool = True) -> str:
    """One sentence: a full stop at the end, a capital at the start unless it opens with a name."""
    text = text.strip().rstrip(".")
    if not text:
        return text
    return (text[0].upper() if upper else text[0]) + text[1:] + "."


def summary_source_of(claims: list[Claim]) -> SummarySource:
    """Who wrote the summary: the model if any of its sentences survived the cite check, else the rules;
    with no claim at all, a template of the raw facts."""
    if any((c.model_extra or {}).get("source") == "llm" for c in claims):
        return "llm"
    return "rule" if claims else "template"


def _earliest_sign(ctx: Context, entity: str) -> tuple[datetime, EvidenceRef] | None:
    """The onset an RCA states and cites: the leading entity's earliest sign (the lead sentence dates
    it the same way, `lead.since`), else the earliest anomaly of any entity."""
    if ctx.window.onset is None or not ctx.anomalies:
        return None
    signs = first_signs(ctx, entity) or [(a.onset, a.evidence) for a in ctx.anomalies]
    at, ref = min(signs, key=lambda sign: sign[0])
    return datetime.fromtimestamp(at, UTC), ref


def template_claims(
    ctx: Context, assessments: list[Assessment], book: EvidenceBook, gate: ConfidenceGates | None
) -> list[Claim]:
    claims: list[Claim] = []
    if assessments:  # the lead: what failed, where, since when, why, in the evidence's own words
        top = assessments[0]
        words = FAULT_WORDS.get(top.hypothesis.fault_type, top.hypothesis.fault_type)
        text, refs = lead_sentence(ctx, top, words, gate.confidence if gate else top.confidence)
        if refs:
            claims.append(Claim(text=text, evidence=book.ids(refs)))
    if ctx.alerts:
        services = ", ".join(ctx.alerting_services[:5])
        names = ", ".join(sorted({a.name for a in ctx.alerts})[:3])
        claims.append(
            Claim(
                text=f"{len(ctx.alerts)} alert(s) ({names}) fired on {services} "
                f"from {_clock(ctx.alerts[0].starts_at)}.",
                evidence=book.ids([a.evidence for a in ctx.alerts[:5]]),
            )
        )
    if not assessments:
        return claims
    top = assessments[0]
    h = top.hypothesis
    top_refs = list(h.evidence) + [e for f in top.findings if f.status == "validated" for e in f.evidence]
    confidence = gate.confidence if gate else top.confidence
    verdict = {"validated": "The most likely root cause is", "invalidated": "Evidence argues against"}.get(
        top.status, "The leading but unconfirmed hypothesis is"
    )
    if top_refs:
        claims.append(
            Claim(
                text=f"{verdict} {FAULT_WORDS.get(h.fault_type, h.fault_type)} at {h.entity} "
                f"({h.fault_type}, confidence {confidence:.2f}).",
                evidence=book.ids(top_refs[:6]),
            )
        )
    earliest = _earliest_sign(ctx, h.entity)
    if earliest is not None:
        claims.append(
            Claim(
                text=f"The incident's signals began around {onset_text(earliest[0], ctx.window.fired_at)}.",
                evidence=book.ids([earliest[1]]),
            )
        )
    for f in top.findings:
        if f.evidence and f.status in ("validated", "inconclusive"):
            text = f.summary.rstrip(".") + "."
            claims.append(Claim(text=text[0].upper() + text[1:], evidence=book.ids(list(f.evidence)[:4])))
    alternatives = sorted(assessments[1:], key=lambda a: -a.confidence)[:MAX_ALTERNATIVES]
    for alt in alternatives:  # strongest first, as a reader expects of "also considered"
        refs = list(alt.hypothesis.evidence)[:3]
        if not refs:
            continue
        ah = alt.hypothesis
        claims.append(
            Claim(
                text=f"Also considered: {FAULT_WORDS.get(ah.fault_type, ah.fault_type)} at {ah.entity} "
                f"({ALTERNATIVE_WORDS.get(alt.status, alt.status)}, confidence {alt.confidence:.2f}).",
                evidence=book.ids(refs),
            )
        )
    return claims


def headline_markdown(card: Headline) -> list[str]:
    """The headline card as Markdown: verdict and cause first, then when, how sure, what to do, on what evidence."""
    cause = f"**{card.verdict}**" + (f": {card.root_cause}" if card.root_cause else "")
    lines = [f"> {cause}" + (f", through {card.mechanism}" if card.mechanism else "")]
    facts = [card.since[0].upper() + card.since[1:]] if card.since else []
    if card.confidence is not None:
        facts.append(f"confidence {card.confidence:.2f}")
    if facts:
        lines.append("> " + " · ".join(facts))
    if card.action:
        lines.append(f"> Suggested action: **{card.action}** ({card.action_status})")
        if card.action_note:
            lines.append(f"> {card.action_note}")
    if card.evidence:
        lines.append(f"> Evidence: {', '.join(card.evidence)}")
    return lines


def render_markdown(result: InvestigationResult, states: list[ProposalState] | None = None) -> str:
    """The RCA for humans: the headline card, claims with their citations, hypotheses, evidence, gaps."""
    states = proposal_states(result.proposals, [], frozenset()) if states is None else states
    lines = [f"# Investigation of {result.bundle}: {result.status}", ""]
    lines += headline_markdown(headline(result, states[0] if states else None)) + [""]
    gates = result.gates
    if gates is not None:
        raised = {"analysis_only": gates.analysis_only, "needs_human": gates.needs_human}
        raised["evidence_missing"] = gates.evidence_missing
        flags = [k.replace("_", " ") for k, on in raised.items() if on]
        if flags:
            lines += [f"> Flags: {', '.join(flags)}", ""]
    lines += ["## Root-cause analysis", ""]
    for c in result.claims:
        lines.append(f"- {c.text} [{', '.join(c.evidence)}]")
    if result.ruled_out:
        lines += ["", "## Ruled out", ""]
        lines += [f"- {r.entity} {r.fault_type}: {r.reason} [{', '.join(r.evidence)}]" for r in result.ruled_out]
    lines += [
        "",
        "## Hypotheses",
        "",
        "| id | entity | fault type | status | confidence | evidence |",
        "|---|---|---|---|---|---|",
    ]
    for i, h in enumerate(result.hypotheses):
        status = hypothesis_label(result, i)
        lines.append(
            f"| {h.id} | {h.entity} | {h.fault_type} | {status} | {h.confidence:.2f} | {', '.join(h.evidence)} |"
        )
    if len(states) > 1:
        lines += ["", "## Other proposals", ""] + [f"- {s.text} ({s.words})" for s in states[1:]]
    lines += ["", "## Evidence", ""]
    for eid, e in result.evidence.items():
        excerpt = e.excerpt.replace("\n", " ")  # a list item, not a table cell: `|` needs no escape
        lines.append(f"- **{eid}** ({e.kind}) `{e.cite}`: {excerpt}")
    if result.gaps:
        lines += ["", "## Gaps", ""] + [f"- {g}" for g in result.gaps]
    lines += ["", f"_first hypothesis {result.timing.first_hypothesis_ms} ms, total {result.timing.total_ms} ms_", ""]
    return "\n".join(lines)
