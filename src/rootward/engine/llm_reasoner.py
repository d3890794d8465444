"""The LLM mode of the reasoner: the model reads evidence and proposes, code decides.

Everything the model sees is a digest of the typed context: scrubbed of
secrets and PII, wrapped in `<log_content>` with instruction-like lines set
aside. Everything it says is checked before it counts: entities must exist
in the context, fault types must be in the closed vocabulary, and every cited
evidence id or cite must be one the engine already holds. Every call is
charged to the investigation's budget by the client (real usage, configured
prices). Any failure of the model (error, timeout, open breaker, invalid
output twice, budget) drops that step back to rule mode and leaves a named
gap in the budget's notes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from pydantic import BaseModel, Field

from rootward.context.assemble import Context
from rootward.context.injection import guard, guard_field
from rootward.context.scrub import scrub_text
from rootward.domain.evidence import EvidenceRef
from rootward.domain.faults import FAULT_TYPES
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Claim, Finding
from rootward.engine.budget import Budget, BudgetExceeded
from rootward.engine.model_agent import AGENT, MANIFEST, AgentLimits, ModelSpecialist
from rootward.engine.reasoner import OpenTools, Pending, Reasoner, RuleReasoner
from rootward.llm.client import LLMClient, repair_reserve, request_tokens
from rootward.llm.context_budget import ContextBudget, count_tokens, fit_guarded, fit_lines
from rootward.llm.prompts import render
from rootward.llm.settings import LLMSettings
from rootward.llm.types import LLMUnavailable

log = logging.getLogger("rootward.engine.llm")
MAX_DIGEST_ITEMS = 40
UNLIMITED = ContextBudget(model="the model", window=10**9, output_tokens=0, input_cap=10**9)
REASONER_PRIOR_CAP = 0.3  # a model's idea never outranks the evidence-backed ranking on its own


class ProposedHypothesis(BaseModel):
    entity: str
    fault_type: str
    rationale: str = Field(max_length=400)
    cites: list[str] = Field(default_factory=list, description="cites from the digest supporting it")


class Proposals(BaseModel):
    hypotheses: list[ProposedHypothesis] = Field(default_factory=list, max_length=3)


class Sentence(BaseModel):
    text: str = Field(max_length=400)
    evidence: list[str] = Field(min_length=1, description="evidence ids (E1, E2, ...) it rests on")


class Prose(BaseModel):
    sentences: list[Sentence] = Field(default_factory=list, max_length=4)


def rank_evidence(ctx: Context, ranked: list[Hypothesis]) -> list[EvidenceRef]:
    """Evidence in the order a cut should spare it: what the best-ranked hypotheses rest on first,
    then the rest of the context in its own order (alerts, anomalies, logs, changes, ...)."""
    order: dict[str, EvidenceRef] = {}
    for ref in [*(e for h in ranked for e in h.evidence), *ctx.evidence_refs()]:
        order.setdefault(ref.cite, ref)
    return list(order.values())[:MAX_DIGEST_ITEMS]


def digest(
    ctx: Context,
    ranked: list[Hypothesis] | None = None,
    room: int = UNLIMITED.prompt_tokens,
    window: ContextBudget = UNLIMITED,
) -> tuple[str, dict[str, EvidenceRef], str | None]:
    """The evidence as lines `[cite] text`, guarded and cut to `room` tokens; the cites shown; the cut."""
    entities = sorted(set(ctx.topology.entities) | set(ctx.alerting_services))
    # The header sits outside <log_content>, and the title and entities come from alert names and labels.
    header = f"Incident: {guard_field(scrub_text(ctx.title))}\nEntities: {', '.join(map(guard_field, entities))}\n"
    items = rank_evidence(ctx, ranked or [])
    lines = [f"[{ref.cite}] {scrub_text(ref.excerpt)}" for ref in items]
    fitted = fit_guarded(lines, room - count_tokens(header), window, source="evidence", what="evidence items")
    shown = items[: fitted.kept]
    return header + guard(fitted.text, source="evidence").text, {ref.cite: ref for ref in shown}, fitted.note


class LLMReasoner:
    name = "llm"

    def __init__(
        self,
        client: LLMClient,
        *,
        severity: str = "P2",
        limits: AgentLimits | None = None,
        variants: Mapping[str, str] | None = None,
    ) -> None:
        """`variants`: the arm of a prompt trial each system prompt renders (`llm.trial_runs.variants_for`)."""
        self._client = client
        self._variants = dict(variants or {})
        self._severity = severity
        self._agent = ModelSpecialist(client, severity=severity, limits=limits)

    def _unavailable(self, budget: Budget, step: str, exc: Exception) -> None:
        note = f"LLM unavailable for {step} ({exc}); rule mode used"
        log.warning(note)
        if note not in budget.notes:
            budget.notes.append(note)

    def _excess(self, system: str, user: str, schema: type[BaseModel]) -> int:
        """Tokens by which the structured request of `user` overflows the model's prompt room (its repair's
        share kept back)."""
        messages = self._client.structured_messages(system, user, schema)
        room = self._client.context(self._severity).prompt_tokens
        return request_tokens(messages) - (room - repair_reserve(room))

    @staticmethod
    def _note_cut(budget: Budget, step: str, cut: str | None) -> None:
        note = f"LLM context for {step}: {cut}"
        if cut is not None and note not in budget.notes:
            budget.notes.append(note)

    def propose(self, ctx: Context, ranked: list[Hypothesis], budget: Budget) -> list[Hypothesis]:
        known = [guard_field(f"{h.id}: {h.entity} {h.fault_type} (prior {h.prior:.2f})") for h in ranked]
        faults = ", ".join(FAULT_TYPES)
        system = render("propose_system", variant=self._variants.get("propose_system", "control"))
        fixed = self._client.structured_messages(
            system, render("propose_user", digest="", ranked=[], faults=faults), Proposals
        )
        window = self._client.context(self._severity)
        room = self._client.room(fixed, severity=self._severity)
        for _ in range(4):  # the template's own glue (list markers, newlines) is measured, then taken out
            shortlist = fit_lines(known, room // 4, window, what="ranked hypotheses")  # a quarter for the ranking
            text, allowed, cut = digest(ctx, ranked, room - count_tokens(shortlist.text), window)
            user = render("propose_user", digest=text, ranked=list(shortlist.lines), faults=faults)
            excess = self._excess(system, user, Proposals)
            if excess <= 0:
                break
            room -= excess
        self._note_cut(budget, "hypotheses", cut)
        try:
            answer = self._client.structured(
                "propose", system=system, user=user, schema=Proposals, severity=self._severity, budget=budget
            )
        except (LLMUnavailable, BudgetExceeded) as exc:
            self._unavailable(budget, "hypotheses", exc)
            return []
        entities = set(ctx.topology.entities) | set(ctx.alerting_services)
        have = {(h.entity, h.fault_type) for h in ranked}
        floor = min((h.prior for h in ranked), default=REASONER_PRIOR_CAP)
        out: list[Hypothesis] = []
        for index, p in enumerate(answer.hypotheses):
            if p.entity not in entities or p.fault_type not in FAULT_TYPES or (p.entity, p.fault_type) in have:
                continue
            evidence = [allowed[c] for c in p.cites if c in allowed]
            if not evidence:
                continue  # an idea with no evidence from the digest is not a hypothesis
            out.append(
                Hypothesis(
                    id=f"L{index + 1}",
                    entity=p.entity,
                    fault_type=p.fault_type,
                    prior=min(REASONER_PRIOR_CAP, floor * 0.9),
                    evidence=evidence,
                    rationale=[scrub_text(p.rationale)],
                    source="reasoner",
                )
            )
        return out

    def classify(self, ctx: Context, pending: Pending, open_tools: OpenTools, budget: Budget) -> list[Finding]:
        out: list[Finding] = []
        for hypothesis, findings in pending[: self._agent.limits.hypotheses]:
            try:
                finding = self._agent.examine(ctx, hypothesis, findings, open_tools(AGENT, MANIFEST), budget)
            except (LLMUnavailable, BudgetExceeded) as exc:
                self._unavailable(budget, "testing hypotheses", exc)
                break
            if finding is not None:
                out.append(finding)
        return out

    def write(self, ctx: Context, claims: list[Claim], budget: Budget) -> list[Claim]:
        ids = {e for c in claims for e in c.evidence}
        facts = [guard_field(f"{scrub_text(c.text)} [{', '.join(c.evidence)}]") for c in claims]
        system = render("write_system", variant=self._variants.get("write_system", "control"))
        fixed = self._client.structured_messages(system, render("write_user", facts=[]), Prose)
        window = self._client.context(self._severity)
        room = self._client.room(fixed, severity=self._severity)
        for _ in range(4):
            fitted = fit_lines(facts, room, window, what="facts")
            user = render("write_user", facts=list(fitted.lines))
            excess = self._excess(system, user, Prose)
            if excess <= 0:
                break
            room -= excess
        self._note_cut(budget, "the summary", fitted.note)
        try:
            prose = self._client.structured(
                "write", system=system, user=user, schema=Prose, severity=self._severity, budget=budget
            )
        except (LLMUnavailable, BudgetExceeded) as exc:
            self._unavailable(budget, "the summary", exc)
            return []
        out = []
        for sentence in prose.sentences:
            cited = [e for e in sentence.evidence if e in ids]
            if cited and len(cited) == len(sentence.evidence):
                claim = {"text": scrub_text(sentence.text), "evidence": cited, "source": "llm"}
                out.append(Claim.model_validate(claim))
        return out


def build_reasoner(settings: LLMSettings, *, severity: str = "P2", client: LLMClient | None = None) -> Reasoner:
    """The reasoner for the configured provider (`none`: rule mode), for the caller's `EngineDeps`.

    `client` is the one to use when the caller charges its calls somewhere (the runtime's
    `charged_llm_client`); without one, a plain client of `settings` is built.
    """
    if settings.provider == "none":
        return RuleReasoner()
    limits = AgentLimits(steps=settings.agent_steps, hypotheses=settings.agent_hypotheses)
    return LLMReasoner(client or LLMClient(settings), severity=severity, limits=limits)
