"""The headline card: what an on-call engineer needs first, the same on every surface.

Verdict, root cause with its mechanism, since when, confidence, the one
suggested action with its status, and the evidence behind the cause. The
console, Slack, Matrix and the Markdown RCA all render this one record, so they
cannot disagree. Hypotheses come below it; they are collapsed when the answer
is clear, and the alternatives never read "validated" as if each were the cause.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rootward.domain.faults import TRIGGER_FAULTS, TRIGGERED_MECHANISMS, fault_words
from rootward.domain.investigation import HypothesisOut, InvestigationResult
from rootward.domain.proposal_state import ProposalState

Tone = Literal["found", "likely", "no_fault", "unknown", "failed"]
VERDICTS: dict[Tone, str] = {
    "found": "Root cause found",
    "likely": "Likely root cause, not confirmed",
    "no_fault": "No current fault",
    "unknown": "No root cause established",
    "failed": "Investigation failed",
}
# How an alternative reads beside the leading hypothesis: it may fit the evidence, but it is weaker.
ALTERNATIVE_LABELS: dict[str, str] = {
    "validated": "consistent, weaker",
    "invalidated": "ruled out",
    "inconclusive": "undecided",
    "untested": "not tested",
}
CLEAR_CONFIDENCE = 0.6  # the leader is validated at least this sure ...
CLEAR_MARGIN = 0.2  # ... and this far ahead of any other cause
MAX_EVIDENCE = 6


class Headline(BaseModel):
    model_config = ConfigDict(frozen=True)

    tone: Tone
    verdict: str
    root_cause: str = Field(default="", description="e.g. 'a bad configuration change at payment (config_error)'")
    mechanism: str = Field(default="", description="how the cause broke things, e.g. 'connection pool exhaustion'")
    since: str = Field(default="", description="e.g. 'since 11:56 UTC, 3 min before the alert'")
    confidence: float | None = None
    clear: bool = Field(default=False, description="one cause stands out: the hypotheses can stay collapsed")
    evidence: list[str] = Field(default_factory=list, description="evidence ids behind the root cause")
    action: str = Field(default="", description="the suggested action in words")
    action_status: str = ""
    action_note: str = Field(default="", description="e.g. no executor configured")
    approval_id: str | None = None

    def lines(self) -> list[str]:
        """The card as plain text lines (chat, terminal)."""
        first = f"{self.verdict}: {self.root_cause}" if self.root_cause else self.verdict
        out = [first + (f", through {self.mechanism}" if self.mechanism else "")]
        facts = [self.since[0].upper() + self.since[1:]] if self.since else []
        if self.confidence is not None:
            facts.append(f"confidence {self.confidence:.2f}")
        if facts:
            out.append(" · ".join(facts))
        if self.action:
            out.append(f"Suggested action: {self.action} [{self.action_status}]")
            if self.action_note:
                out.append(self.action_note)
        if self.evidence:
            out.append(f"Evidence: {', '.join(self.evidence)}")
        return out


def _tone(result: InvestigationResult, top: HypothesisOut | None) -> Tone:
    if result.no_fault or str(result.status) == "no_fault":
        return "no_fault"
    if result.status == "failed":
        return "failed"
    if top is None or top.status == "invalidated":
        return "unknown"
    needs_human = result.gates is not None and result.gates.needs_human
    return "found" if top.status == "validated" and result.status == "validated" and not needs_human else "likely"


def _mechanism(result: InvestigationResult, top: HypothesisOut) -> str:
    """For a trigger (a config change, a deploy): the next-ranked fault at the same entity it can bring about."""
    if top.fault_type not in TRIGGER_FAULTS:
        return ""
    for h in result.hypotheses[1:]:
        if h.entity == top.entity and h.fault_type in TRIGGERED_MECHANISMS and h.status != "invalidated":
            return fault_words(h.fault_type)
    return ""


def _since(result: InvestigationResult) -> str:
    onset, fired = result.onset, result.fired_at
    if onset is None:
        return ""
    text = f"since {onset.astimezone(UTC):%H:%M} UTC"
    if fired is None:
        return text
    lead = round((fired - onset).total_seconds() / 60)
    if lead == 0:
        return text + ", when the alert fired"
    return text + (f", {lead} min before the alert" if lead > 0 else f", {-lead} min after the alert")


def is_clear(result: InvestigationResult) -> bool:
    """One cause stands out: validated, sure enough, and well ahead of any cause at another entity."""
    top = result.top
    if top is None or _tone(result, top) != "found" or top.confidence < CLEAR_CONFIDENCE:
        return False
    others = [h.confidence for h in result.hypotheses[1:] if h.entity != top.entity and h.status != "invalidated"]
    return not others or top.confidence - max(others) >= CLEAR_MARGIN


def hypothesis_label(result: InvestigationResult, index: int) -> str:
    """The status a hypothesis shows: the leader's own, an alternative's relative to the leader."""
    h = result.hypotheses[index]
    return h.status if index == 0 else ALTERNATIVE_LABELS.get(h.status, h.status)


def headline(result: InvestigationResult, action: ProposalState | None = None) -> Headline:
    top = result.top
    tone = _tone(result, top)
    card = Headline(tone=tone, verdict=VERDICTS[tone], since=_since(result))
    if top is not None and tone in ("found", "likely"):
        card = card.model_copy(
            update={
                "root_cause": f"{fault_words(top.fault_type)} at {top.entity} ({top.fault_type})",
                "mechanism": _mechanism(result, top),
                "confidence": round(top.confidence, 2),
                "clear": is_clear(result),
                "evidence": [e for e in top.evidence if e in result.evidence][:MAX_EVIDENCE],
            }
        )
    if action is not None:
        card = card.model_copy(
            update={
                "action": action.text,
                "action_status": action.status,
                "action_note": action.executor_note,
                "approval_id": action.approval_id if action.decidable else None,
            }
        )
    return card


def onset_text(onset: datetime, fired_at: datetime) -> str:
    """`began around 11:56, 3 min before the alert time` with the sign right (after, when it is)."""
    lead = round((fired_at - onset).total_seconds() / 60)
    when = "at the alert time" if lead == 0 else (f"{lead} min before" if lead > 0 else f"{-lead} min after")
    return f"{onset.astimezone(UTC):%H:%M}, {when}{' the alert time' if lead else ''}"
