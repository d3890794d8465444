"""A follow-up answered by a model over the evidence rule mode retrieves, its cites checked by code.

The model reads the facts `followup_evidence.ranked_facts` ranks (what the
rule-mode answer would quote first), cut to its context window lowest-ranked
first with the cut named, and answers with text and the refs it relies on.
Code then keeps only the refs that were shown to it, which are all the
investigation's evidence ids or cites of its incident's data: an unknown ref is
dropped from the cites and from the text. An answer left with no cite, a model
that fails (down, slow, circuit open, daily cap, invalid output twice) or a
prompt that cannot fit gives the rule-mode answer instead, with the reason in
its note; a follow-up never fails because of the model.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace

from pydantic import BaseModel, Field

from rootward.context.injection import guard, guard_field
from rootward.context.scrub import scrub_text
from rootward.domain.investigation import InvestigationResult
from rootward.engine.followup import Answer
from rootward.engine.followup_context import FollowupContext
from rootward.engine.followup_evidence import incident_lines, ranked_facts
from rootward.llm.client import LLMClient, repair_reserve, request_tokens
from rootward.llm.context_budget import fit_guarded
from rootward.llm.prompts import render
from rootward.llm.types import LLMUnavailable

log = logging.getLogger("rootward.engine.followup")
SYSTEM_PROMPT = "followup_system"  # the template a prompt trial varies (`followup_system.<variant>.j2`)
PURPOSE = "followup"  # the `llm_calls` purpose of these calls
_BRACKETS = re.compile(r"\s?\[([^\[\]\n]{1,300})\]")


class ModelAnswer(BaseModel):
    answer: str = Field(min_length=1, max_length=2000, description="the answer, citing refs in [square brackets]")
    cites: list[str] = Field(
        default_factory=list, max_length=20, description="refs of the evidence lines the answer rests on"
    )


@dataclass(frozen=True)
class FollowupPrompt:
    system: str
    user: str
    allowed: dict[str, str]  # every ref the model was shown (and an evidence item's cite) → the ref it stands for
    shown: int
    total: int
    cut: str | None  # what the context budget left out, or None


def build_prompt(
    client: LLMClient,
    result: InvestigationResult,
    question: str,
    context: FollowupContext | None,
    rule: Answer,
    *,
    severity: str = "P2",
    variant: str = "control",
) -> FollowupPrompt:
    """The prompt, its evidence fitted to the model's window (its repair's share kept back)."""
    facts = ranked_facts(result, question, context, rule=rule)
    system = render(SYSTEM_PROMPT, variant=variant)
    header = [guard_field(line) for line in incident_lines(result, context)]
    asked = guard_field(scrub_text(question))
    fixed = client.structured_messages(
        system, render("followup_user", incident=header, evidence="", question=asked), ModelAnswer
    )
    window = client.context(severity)
    room = client.room(fixed, severity=severity)
    lines = [fact.line for fact in facts]
    for _ in range(4):  # the template's own glue is measured, then taken out of the room
        fitted = fit_guarded(lines, room, window, source="evidence", what="evidence lines")
        evidence = guard(fitted.text, source="evidence").text
        user = render("followup_user", incident=header, evidence=evidence, question=asked)
        prompt_room = window.prompt_tokens - repair_reserve(window.prompt_tokens)
        excess = request_tokens(client.structured_messages(system, user, ModelAnswer)) - prompt_room
        if excess <= 0:
            break
        room = max(0, room - excess)
    allowed: dict[str, str] = {}
    for fact in facts[: fitted.kept]:
        for ref in fact.refs:
            allowed[ref] = ref
            if ref in result.evidence:
                allowed.setdefault(result.evidence[ref].cite, ref)
    return FollowupPrompt(system, user, allowed, fitted.kept, len(facts), fitted.note)


@dataclass(frozen=True)
class CheckedCites:
    text: str  # the model's text, unknown refs taken out of its brackets
    kept: tuple[str, ...]
    dropped: tuple[str, ...]


def check_cites(reply: ModelAnswer, allowed: dict[str, str]) -> CheckedCites:
    """The refs of `reply` that are in `allowed` (as the ref they stand for), in citing order; the rest dropped."""
    kept: list[str] = []
    dropped: list[str] = []

    def sort(ref: str) -> str | None:
        ref = ref.strip().strip("`'\"")
        if ref in allowed:
            kept.append(allowed[ref])
            return allowed[ref]
        if ref:
            dropped.append(ref)
        return None

    def rewrite(found: re.Match[str]) -> str:
        whole = found.group(1).strip()
        parts = [whole] if whole in allowed else whole.split(",")  # a live query's cite may hold commas
        refs = [r for r in (sort(part) for part in parts) if r is not None]
        return f" [{', '.join(refs)}]" if refs else ""

    text = _BRACKETS.sub(rewrite, scrub_text(reply.answer)).strip()
    for ref in reply.cites:
        sort(ref)
    return CheckedCites(text, tuple(dict.fromkeys(kept)), tuple(dict.fromkeys(dropped)))


def fallback(rule: Answer, reason: str) -> Answer:
    log.info("follow-up answered in rule mode: %s", reason)
    return replace(rule, source="rule", note=f"{reason}; answered in rule mode")


def model_answer(
    client: LLMClient,
    result: InvestigationResult,
    question: str,
    context: FollowupContext | None,
    rule: Answer,
    *,
    severity: str = "P2",
    variant: str = "control",
) -> Answer:
    """The model's answer with its checked cites, or `rule` with the reason the model's could not stand."""
    prompt = build_prompt(client, result, question, context, rule, severity=severity, variant=variant)
    if not prompt.allowed:
        return fallback(rule, "no evidence line fits the model's context window" if prompt.total else "no evidence")
    try:
        reply = client.structured(
            PURPOSE, system=prompt.system, user=prompt.user, schema=ModelAnswer, severity=severity
        )
    except LLMUnavailable as exc:
        return fallback(rule, f"the model could not answer ({exc})")
    checked = check_cites(reply, prompt.allowed)
    dropped = f" (dropped: {', '.join(checked.dropped)})" if checked.dropped else ""
    if not checked.kept:
        return fallback(rule, f"the model's answer cited none of the evidence lines it was shown{dropped}")
    parts = [f"model-written from {prompt.shown} of {prompt.total} evidence lines; every cite checked against them"]
    if checked.dropped:
        parts.append(f"{len(checked.dropped)} cite(s) not among them dropped: {', '.join(checked.dropped)}")
    if prompt.cut:
        parts.append(prompt.cut)
    return Answer(
        text=checked.text,
        evidence=tuple(r for r in checked.kept if r in result.evidence),
        cites=tuple(r for r in checked.kept if r not in result.evidence),
        source="llm",
        note="; ".join(parts),
    )
