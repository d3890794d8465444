"""Runbook drafts with a model's summary: the template's facts stay, the model adds plain words.

A resolved investigation's draft is always the structured template (symptom,
evidence cites, root cause, fix), so a reviewer sees exactly what the
investigation established. With a model configured it adds two things a
template cannot write: a short account of what happened, and what to check
first next time. Both are marked as model-written, scrubbed, and count only if
they cite evidence the investigation held; any failure of the model leaves the
template alone. The draft still waits for an approver either way.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from rootward.context.injection import guard, guard_field
from rootward.context.scrub import scrub_text
from rootward.knowledge.drafts import ResolvedFindings, render_addition
from rootward.llm.client import LLMClient
from rootward.llm.prompts import render
from rootward.llm.types import LLMUnavailable


class RunbookProse(BaseModel):
    summary: str = Field(default="", max_length=600, description="what happened, in two or three sentences")
    checks: list[str] = Field(default_factory=list, max_length=6, description="what to check first next time")
    cites: list[str] = Field(default_factory=list, description="cites from the evidence the summary rests on")


def draft_body(findings: ResolvedFindings, excerpts: Mapping[str, str], client: LLMClient | None) -> tuple[str, str]:
    """The draft's Markdown and who wrote its prose: "template", or "llm" when a model added to it."""
    body = render_addition(findings)
    if client is None or not client.enabled:
        return body, "template"
    lines = [f"[{cite}] {scrub_text(excerpts.get(cite, ''))}" for cite in findings.evidence]
    user = render(
        "runbook_user",
        symptom=guard_field(scrub_text(findings.symptom)),
        root_cause=guard_field(f"{findings.fault_type.replace('_', ' ')} on {findings.root_cause_entity}"),
        fix=guard_field(scrub_text(findings.fix)),
        evidence=guard("\n".join(lines), source="evidence").text,
    )
    try:
        prose = client.structured("runbook", system=render("runbook_system"), user=user, schema=RunbookProse)
    except LLMUnavailable:
        return body, "template"
    cited = [c for c in prose.cites if c in findings.evidence]
    summary = scrub_text(prose.summary).strip()
    if not summary or not cited:
        return body, "template"  # prose that rests on nothing the investigation held is not kept
    checks = [scrub_text(c).strip() for c in prose.checks if c.strip()]
    extra = ["", "**Summary (model-written; review before accepting):** " + summary]
    extra += [f"Rests on: {', '.join(f'`{c}`' for c in cited)}"]
    if checks:
        extra += ["", "**Check first next time (model-written):**", *(f"- {c}" for c in checks)]
    return body.rstrip("\n") + "\n" + "\n".join(extra) + "\n", "llm"
