"""The model specialist: an LLM that picks the next read-only tool and classifies what it found.

It runs only in LLM mode and only on hypotheses the rule specialists left
undecided. Each step the model either names one tool from its manifest (and
an entity from the incident) or concludes `supports` / `refutes` / `unclear`
with cites. Code holds every lever: tools go through the same `ToolLayer` as
the rule specialists (manifest enforced, charged to the "model" agent's
budget, audited), tool output reaches the model scrubbed and fenced as
`<log_content>`, and a conclusion counts only with cites of evidence the
model was actually shown in this conversation. Steps are capped; a model that
never concludes leaves no finding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from rootward.context.assemble import Context
from rootward.context.injection import guard
from rootward.context.scrub import scrub_text
from rootward.domain.evidence import EvidenceRef
from rootward.domain.investigation import Finding, FindingStatus, ToolResult
from rootward.engine.budget import Budget, BudgetExceeded
from rootward.engine.hypotheses import Hypothesis
from rootward.engine.tools import ManifestViolation, ToolLayer
from rootward.llm.accounting import estimate_tokens
from rootward.llm.client import LLMClient
from rootward.llm.prompts import render

AGENT = "model"
# Read-only evidence tools; `alerts` is already in the hypothesis' context.
MANIFEST = frozenset(
    {
        "metric_anomalies",
        "metric_scores",
        "log_templates",
        "log_mentions",
        "dependent_logs",
        "dependents",
        "path_to_alerts",
        "changes_for",
        "knowledge_for",
    }
)
# A model's classification is one voice among the specialists, never certainty.
MODEL_CONFIDENCE = 0.5
MAX_RESULT_LINES = 12
MAX_RESULT_CHARS = 1500

Verdict = Literal["supports", "refutes", "unclear"]
STATUS: dict[str, FindingStatus] = {"supports": "validated", "refutes": "invalidated", "unclear": "inconclusive"}


class AgentStep(BaseModel):
    tool: str | None = Field(default=None, description="the next tool to call; null to conclude")
    entity: str | None = Field(default=None, description="the entity the tool is about")
    direction: Literal["failure", "load"] | None = Field(default=None, description="path_to_alerts only")
    verdict: Verdict | None = Field(default=None, description="when concluding: supports, refutes or unclear")
    cites: list[str] = Field(default_factory=list, description="cites (as shown in [brackets]) the verdict rests on")
    reason: str = Field(default="", max_length=400)


@dataclass(frozen=True)
class AgentLimits:
    steps: int = 4  # model calls per hypothesis, the concluding one included
    hypotheses: int = 2  # undecided hypotheses the model examines per investigation


def _excerpt(ref: EvidenceRef) -> str:
    return f"[{ref.cite}] {scrub_text(ref.excerpt)}"


def _jsonable(item: Any) -> Any:
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude={"evidence"})
    return item if isinstance(item, str | int | float | bool) or item is None else str(item)


def describe(result: ToolResult) -> str:
    """What the model sees of a tool call: status, cited excerpts, or the data itself when nothing is cited."""
    head = f"{result.invocation} -> {result.status}"
    if result.evidence:
        lines = [_excerpt(ref) for ref in result.evidence[:MAX_RESULT_LINES]]
    elif isinstance(result.data, list | tuple) and result.data:
        lines = [scrub_text(json.dumps(_jsonable(x), sort_keys=True)) for x in result.data[:MAX_RESULT_LINES]]
    else:
        lines = []
    body = "\n".join(lines)[:MAX_RESULT_CHARS]
    return f"{head}\n{guard(body, source='tool').text}" if body else head


class ModelSpecialist:
    def __init__(self, client: LLMClient, *, severity: str = "P2", limits: AgentLimits | None = None) -> None:
        self._client = client
        self._severity = severity
        self.limits = limits or AgentLimits()

    def examine(
        self, ctx: Context, hypothesis: Hypothesis, findings: list[Finding], tools: ToolLayer, budget: Budget
    ) -> Finding | None:
        """Run the tool loop for one hypothesis; a finding only for a cited conclusion."""
        shown: dict[str, EvidenceRef] = {}
        for ref in [*hypothesis.evidence, *(e for f in findings for e in f.evidence)]:
            shown.setdefault(ref.cite, ref)
        known = [f"{f.specialist}: {f.status}: {scrub_text(f.summary)}" for f in findings]
        entities = sorted(set(ctx.topology.entities) | set(ctx.alerting_services))
        tool_lines = [f"{name}(entity{', direction' if name == 'path_to_alerts' else ''})" for name in sorted(MANIFEST)]
        transcript: list[str] = []
        for step in range(self.limits.steps):
            last = step == self.limits.steps - 1
            user = render(
                "agent_user",
                hypothesis=f"{hypothesis.entity} {hypothesis.fault_type}",
                evidence=guard("\n".join(_excerpt(r) for r in shown.values()), source="evidence").text,
                findings=known,
                entities=", ".join(entities),
                tools=tool_lines,
                transcript=transcript,
                last=last,
            )
            budget.charge_llm(estimate_tokens(user), 0.0)
            answer = self._client.structured(
                "agent", system=render("agent_system"), user=user, schema=AgentStep, severity=self._severity
            )
            if answer.verdict is not None or answer.tool is None or last:
                return self._conclude(hypothesis, answer, shown, tools)
            transcript.append(self._run_tool(answer, entities, tools, shown))
        return None

    @staticmethod
    def _run_tool(answer: AgentStep, entities: list[str], tools: ToolLayer, shown: dict[str, EvidenceRef]) -> str:
        name = answer.tool or ""
        if answer.entity not in entities:
            return f"{name}: refused, {answer.entity!r} is not an entity of this incident"
        args = {"entity": answer.entity}
        if name == "path_to_alerts" and answer.direction:
            args["direction"] = answer.direction
        try:
            result = tools.call(name, **args)
        except ManifestViolation as exc:
            return f"{name}: refused, {exc}"
        except BudgetExceeded as exc:
            return f"{name}: refused, {exc.detail}; conclude now"
        for ref in result.evidence:
            shown.setdefault(ref.cite, ref)
        return describe(result)

    @staticmethod
    def _conclude(
        hypothesis: Hypothesis, answer: AgentStep, shown: dict[str, EvidenceRef], tools: ToolLayer
    ) -> Finding | None:
        cited = [shown[c] for c in dict.fromkeys(answer.cites) if c in shown]
        if answer.verdict is None or not cited:
            return None  # no conclusion, or one that rests on nothing it was shown
        return Finding(
            hypothesis_id=hypothesis.id,
            status=STATUS[answer.verdict],
            evidence=tuple(cited),
            confidence=MODEL_CONFIDENCE,
            summary=f"model: {scrub_text(answer.reason) or answer.verdict}",
            specialist=AGENT,
            tool_calls=tuple(tools.calls),
        )
