"""The model specialist: an LLM that picks the next read-only tool and classifies what it found.

It runs only in LLM mode and only on hypotheses whose direct evidence the rule
specialists left silent or split. It is a tool-using conversation in the
provider's own protocol (OpenAI tool calls, Anthropic tool use): each turn the
model calls tools from its manifest about entities of this incident, or calls
`conclude` with `supports` / `refutes` / `unclear`, cites and a reason. Code
holds every lever: tools run through the same `ToolLayer` as the rule
specialists (manifest enforced, charged to the "model" agent's budget,
audited); their typed results (status, invocation, error, cited evidence,
data) reach the model scrubbed and fenced as `<log_content>`, so it can
correct a bad call; a conclusion counts only with cites of evidence the model
was actually shown; turns are capped, and a model that never concludes leaves
no finding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from rootward.context.assemble import Context
from rootward.context.injection import guard, guard_field
from rootward.context.scrub import scrub_text
from rootward.domain.evidence import EvidenceRef
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding, FindingStatus, ToolResult
from rootward.engine.budget import Budget, BudgetExceeded
from rootward.engine.tools import ManifestViolation, Tool, ToolLayer
from rootward.llm.client import LLMClient, request_tokens
from rootward.llm.context_budget import CHARS_PER_TOKEN, fit_guarded
from rootward.llm.prompts import render
from rootward.llm.types import Message, ToolCall, ToolSpec

AGENT = "model"
# Read-only evidence tools; the alerts are already in the hypothesis' context.
MANIFEST = frozenset(
    {
        "metric_anomalies",
        "metric_scores",
        "log_templates",
        "log_shifts",
        "log_mentions",
        "dependent_logs",
        "dependents",
        "path_to_alerts",
        "changes_for",
        "knowledge_for",
    }
)
CONCLUDE = "conclude"
# A model's classification is one voice among the specialists, never certainty.
MODEL_CONFIDENCE = 0.5
MAX_RESULT_ITEMS = 12
MAX_RESULT_CHARS = 2000
MAX_CALLS_PER_TURN = 2
MAX_ENUM_ENTITIES = 60  # beyond this the entity list is in the prompt, not in every tool's schema
CUT_RESULT = "(this earlier tool result was cut to fit the model's context window)"

Verdict = Literal["supports", "refutes", "unclear"]
STATUS: dict[str, FindingStatus] = {"supports": "validated", "refutes": "invalidated", "unclear": "inconclusive"}

CONCLUDE_SPEC = ToolSpec(
    CONCLUDE,
    "Classify the hypothesis and stop: supports, refutes or unclear, with the cites it rests on.",
    {
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["supports", "refutes", "unclear"]},
            "cites": {"type": "array", "items": {"type": "string"}, "description": "cites shown in [brackets]"},
            "reason": {"type": "string", "maxLength": 400},
        },
        "required": ["verdict", "cites", "reason"],
    },
)


@dataclass(frozen=True)
class AgentLimits:
    steps: int = 4  # model turns per hypothesis, the concluding one included
    hypotheses: int = 2  # undecided hypotheses the model examines per investigation


def tool_specs(tools: list[Tool], entities: list[str]) -> list[ToolSpec]:
    """Each tool's parameter model as the model sees it; an `entity` lists this incident's entities."""
    specs = []
    for tool in tools:
        schema = tool.params.json_schema()
        entity = schema.get("properties", {}).get("entity")
        if entity is not None and len(entities) <= MAX_ENUM_ENTITIES:
            entity["enum"] = entities
        specs.append(ToolSpec(tool.name, tool.description, schema))
    return [*specs, CONCLUDE_SPEC]


def _jsonable(item: Any) -> Any:
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude={"evidence"})
    return item if isinstance(item, str | int | float | bool) or item is None else str(item)


def describe(result: ToolResult, max_chars: int = MAX_RESULT_CHARS) -> str:
    """A typed tool result as the model sees it: a header line (status, invocation, error), then one
    line per cited evidence item or data item, so the injection guard can set aside a single line."""
    head: dict[str, Any] = {"status": result.status, "invocation": result.invocation}
    if result.error:
        head["error"] = result.error
    items: list[Any]
    if result.evidence:
        items = [{"cite": ref.cite, "excerpt": ref.excerpt} for ref in result.evidence[:MAX_RESULT_ITEMS]]
    elif isinstance(result.data, list | tuple):
        items = [_jsonable(x) for x in result.data[:MAX_RESULT_ITEMS]]
    else:
        items = []
    lines = [json.dumps(head, sort_keys=True), *(json.dumps(item, sort_keys=True) for item in items)]
    text = scrub_text("\n".join(lines))[:max_chars]
    return guard(text, source="tool").text


def _excerpt(ref: EvidenceRef) -> str:
    return f"[{ref.cite}] {scrub_text(ref.excerpt)}"


class ModelSpecialist:
    def __init__(self, client: LLMClient, *, severity: str = "P2", limits: AgentLimits | None = None) -> None:
        self._client = client
        self._severity = severity
        self.limits = limits or AgentLimits()

    def examine(
        self, ctx: Context, hypothesis: Hypothesis, findings: list[Finding], tools: ToolLayer, budget: Budget
    ) -> Finding | None:
        """Run the tool conversation for one hypothesis; a finding only for a cited conclusion."""
        shown: dict[str, EvidenceRef] = {}
        for ref in [*hypothesis.evidence, *(e for f in findings for e in f.evidence)]:
            shown.setdefault(ref.cite, ref)
        entities = sorted(set(ctx.topology.entities) | set(ctx.alerting_services))
        specs = tool_specs(tools.offered(), entities)
        messages = self._opening(hypothesis, findings, shown, entities, budget)
        for step in range(self.limits.steps):
            last = step == self.limits.steps - 1
            offered = self._fit_turn(messages, [CONCLUDE_SPEC] if last else specs, budget)
            reply = self._client.converse("agent", messages, offered, severity=self._severity, budget=budget)
            messages.append(Message("assistant", reply.text, tool_calls=reply.tool_calls))
            conclusion = next((c for c in reply.tool_calls if c.name == CONCLUDE), None)
            if conclusion is not None:
                return self._conclude(hypothesis, conclusion, shown, tools)
            if last:
                break  # only `conclude` was offered: anything else is not run
            if not reply.tool_calls:
                messages.append(Message("user", "Call one of the tools, or `conclude`."))
                continue
            for n, call in enumerate(reply.tool_calls):
                if n >= MAX_CALLS_PER_TURN:
                    answer = f"refused: at most {MAX_CALLS_PER_TURN} tool calls per turn"
                else:
                    answer = self._run_tool(call, entities, tools, shown, self._result_chars())
                messages.append(Message("tool", answer, tool_call_id=call.id))
        return None

    def _opening(
        self,
        hypothesis: Hypothesis,
        findings: list[Finding],
        shown: dict[str, EvidenceRef],
        entities: list[str],
        budget: Budget,
    ) -> list[Message]:
        """The system and user turns, the evidence cut (and the cut named) to leave room for tool results."""

        def user(evidence: str) -> Message:
            return Message(
                "user",
                render(
                    "agent_user",
                    hypothesis=guard_field(f"{hypothesis.entity} {hypothesis.fault_type}"),
                    evidence=evidence,
                    findings=[guard_field(f"{f.specialist}: {f.status}: {scrub_text(f.summary)}") for f in findings],
                    entities=", ".join(map(guard_field, entities)),
                    turns=self.limits.steps,
                ),
            )

        system = Message("system", render("agent_system"))
        # Evidence before tools: the room is measured with `conclude` alone, and `_fit_turn` offers only the
        # tools that still fit (on a 2048-token window ten tool schemas would otherwise crowd out every cite).
        room = self._client.room([system, user("")], [CONCLUDE_SPEC], severity=self._severity)
        # Half the room for the opening evidence, half for the tools and what they bring back.
        lines = [_excerpt(r) for r in shown.values()]
        fitted = fit_guarded(lines, room // 2, self._client.context(self._severity), source="evidence", what="cites")
        if fitted.note is not None:
            note = f"LLM context for testing hypotheses: {fitted.note}"
            if note not in budget.notes:
                budget.notes.append(note)
        for cite in list(shown)[fitted.kept :]:
            del shown[cite]  # a cite cut from the prompt was not shown: the model cannot rest on it
        return [system, user(guard(fitted.text, source="evidence").text)]

    def _result_chars(self) -> int:
        """A tool result's share of the window: a quarter of the prompt room, at most MAX_RESULT_CHARS."""
        return min(MAX_RESULT_CHARS, self._client.context(self._severity).prompt_tokens * CHARS_PER_TOKEN // 4)

    def _fit_turn(self, messages: list[Message], specs: list[ToolSpec], budget: Budget) -> list[ToolSpec]:
        """Make the next turn fit the window: older tool results shortened first, then fewer tools offered.

        `messages` is edited in place (a shortened result says so); the tools kept are the manifest's first
        ones plus `conclude`, which is always offered. What cannot be made to fit is refused by the client.
        """
        window = self._client.context(self._severity).prompt_tokens
        for index, message in enumerate(messages):
            if request_tokens(messages, specs) <= window:
                return specs
            if message.role == "tool" and message.content != CUT_RESULT:
                messages[index] = Message("tool", CUT_RESULT, tool_call_id=message.tool_call_id)
        offered = [s for s in specs if s.name != CONCLUDE]
        while offered and request_tokens(messages, [*offered, CONCLUDE_SPEC]) > window:
            offered.pop()
        if len(offered) < len(specs) - 1:
            note = f"LLM context for testing hypotheses: {len(offered)} of {len(specs) - 1} tools offered to fit it"
            if note not in budget.notes:
                budget.notes.append(note)
        return [*offered, CONCLUDE_SPEC]

    @staticmethod
    def _run_tool(
        call: ToolCall,
        entities: list[str],
        tools: ToolLayer,
        shown: dict[str, EvidenceRef],
        chars: int = MAX_RESULT_CHARS,
    ) -> str:
        tool = next((t for t in tools.offered() if t.name == call.name), None)
        try:
            args = tool.arguments(call.arguments) if tool is not None else {}
        except ValidationError as exc:
            err = exc.errors()[0]
            return f"refused: {'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
        if "entity" in args and args["entity"] not in entities:
            return f"refused: {args['entity']!r} is not an entity of this incident"
        try:
            result = tools.call(call.name, **args)
        except ManifestViolation as exc:
            return f"refused: {exc}"
        except BudgetExceeded as exc:
            return f"refused: {exc.detail}; conclude now"
        for ref in result.evidence:
            shown.setdefault(ref.cite, ref)
        return describe(result, chars)

    @staticmethod
    def _conclude(
        hypothesis: Hypothesis, call: ToolCall, shown: dict[str, EvidenceRef], tools: ToolLayer
    ) -> Finding | None:
        verdict = call.arguments.get("verdict")
        raw_cites = call.arguments.get("cites")
        cites = [str(c) for c in raw_cites] if isinstance(raw_cites, list) else []
        cited = [shown[c] for c in dict.fromkeys(cites) if c in shown]
        if verdict not in STATUS or not cited:
            return None  # no conclusion, or one that rests on nothing it was shown
        reason = scrub_text(str(call.arguments.get("reason") or ""))[:400]
        return Finding(
            hypothesis_id=hypothesis.id,
            status=STATUS[str(verdict)],
            evidence=tuple(cited),
            confidence=MODEL_CONFIDENCE,
            summary=f"model: {reason or verdict}",
            specialist=AGENT,
            tool_calls=tuple(tools.calls),
        )
