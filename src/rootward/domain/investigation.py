"""Typed records an investigation produces, and the result JSON of the spec.

`InvestigationResult` is exactly what `rootward investigate BUNDLE --json`
prints and what the evaluation harness scores; extend it only with optional
keys. It is also the one record the runtime passes from the engine to
record, act, notify, the store and the console: everything the investigation
concluded (gates, verification, agent trace, proposals) is a typed field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from rootward.domain.evidence import EvidenceKind, EvidenceRef
from rootward.domain.proposal import Proposal

FindingStatus = Literal["validated", "invalidated", "inconclusive"]
HypothesisStatus = Literal["validated", "invalidated", "inconclusive", "untested"]
InvestigationStatus = Literal["validated", "inconclusive", "no_fault", "failed"]
ToolStatus = Literal["ok", "no_data", "error", "unavailable"]
# Who wrote the summary a notification leads with: the model, the rule templates, or nobody
# (no claim could be made: a template with the raw facts).
SummarySource = Literal["llm", "rule", "template"]


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns: what happened and what was asked, so callers can correct."""

    status: ToolStatus
    data: Any
    invocation: str
    error: str | None = None
    evidence: tuple[EvidenceRef, ...] = ()


@dataclass(frozen=True)
class Finding:
    hypothesis_id: str
    status: FindingStatus
    evidence: tuple[EvidenceRef, ...]
    confidence: float
    summary: str
    specialist: str = ""
    tool_calls: tuple[str, ...] = field(default_factory=tuple)


class EvidenceItem(BaseModel):
    model_config = ConfigDict(extra="allow")

    kind: EvidenceKind
    cite: str
    excerpt: str = ""


class HypothesisOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    entity: str
    fault_type: str
    status: HypothesisStatus
    confidence: float = Field(ge=0.0, le=1.0)
    evidence: list[str] = Field(default_factory=list)


class Claim(BaseModel):
    model_config = ConfigDict(extra="allow")

    text: str
    evidence: list[str] = Field(default_factory=list)


class Timing(BaseModel):
    model_config = ConfigDict(extra="allow")

    first_hypothesis_ms: int | None = None
    total_ms: int = 0


class ConfidenceGates(BaseModel):
    """What the top hypothesis's confidence allows (`engine/confidence_gates.py`): analysis only, a human, a cap."""

    confidence: float
    analysis_only: bool
    needs_human: bool
    evidence_missing: bool


class Verification(BaseModel):
    """The verifier's pass over the assessments: what it found, what it repaired, what is still wrong."""

    problems: list[str] = Field(default_factory=list)
    repairs: list[str] = Field(default_factory=list)
    remaining: list[str] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ok(self) -> bool:
        return not self.remaining


class TraceEntry(BaseModel):
    """One tool call an agent made (or was refused): the console's agent trace."""

    model_config = ConfigDict(extra="allow")

    agent: str
    tool: str
    invocation: str
    status: str  # a ToolStatus, or "refused" for a call outside the agent's manifest
    ms: float | None = None


class RuledOut(BaseModel):
    """A candidate cause the investigation excluded: what was checked, why it is not the cause, cited."""

    entity: str
    fault_type: str
    reason: str
    evidence: list[str] = Field(default_factory=list)


class InvestigationResult(BaseModel):
    model_config = ConfigDict(extra="allow")

    bundle: str
    status: InvestigationStatus
    hypotheses: list[HypothesisOut] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    evidence: dict[str, EvidenceItem] = Field(default_factory=dict)
    gaps: list[str] = Field(default_factory=list)
    timing: Timing = Field(default_factory=Timing)
    gates: ConfidenceGates | None = None
    verification: Verification = Field(default_factory=Verification)
    trace: list[TraceEntry] = Field(default_factory=list)
    summary_source: SummarySource = "rule"
    proposals: list[Proposal] = Field(default_factory=list)
    no_fault: bool = False
    ruled_out: list[RuledOut] = Field(default_factory=list)
    onset: datetime | None = Field(
        default=None, description="when the incident's signals began (its earliest cited anomaly)"
    )
    onset_cite: str | None = Field(default=None, description="the cite of the anomaly that dates the onset")
    fired_at: datetime | None = Field(default=None, description="when the first alert fired")

    @property
    def top(self) -> HypothesisOut | None:
        """The leading hypothesis, if any."""
        return self.hypotheses[0] if self.hypotheses else None

    def cites_of(self, evidence_ids: list[str]) -> list[str]:
        """The cites behind evidence ids, in order, skipping ids this result does not hold."""
        return [self.evidence[e].cite for e in evidence_ids if e in self.evidence]

    def dangling_evidence_ids(self) -> list[str]:
        """Evidence ids named by a hypothesis, claim or ruled-out line but absent from `evidence`."""
        named = [e for h in self.hypotheses for e in h.evidence] + [e for c in self.claims for e in c.evidence]
        named += [e for r in self.ruled_out for e in r.evidence]
        return sorted({e for e in named if e not in self.evidence})
