"""Typed records an investigation produces, and the result JSON of the spec.

`InvestigationResult` is exactly what `rootward investigate BUNDLE --json`
prints and what the evaluation harness scores; extend it only with optional
keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rootward.domain.evidence import EvidenceKind, EvidenceRef

FindingStatus = Literal["validated", "invalidated", "inconclusive"]
HypothesisStatus = Literal["validated", "invalidated", "inconclusive", "untested"]
InvestigationStatus = Literal["validated", "inconclusive", "failed"]
ToolStatus = Literal["ok", "no_data", "error", "unavailable"]


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


class InvestigationResult(BaseModel):
    model_config = ConfigDict(extra="allow")

    bundle: str
    status: InvestigationStatus
    hypotheses: list[HypothesisOut] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    evidence: dict[str, EvidenceItem] = Field(default_factory=dict)
    gaps: list[str] = Field(default_factory=list)
    timing: Timing = Field(default_factory=Timing)

    def dangling_evidence_ids(self) -> list[str]:
        """Evidence ids named by a hypothesis or claim but absent from `evidence`."""
        named = [e for h in self.hypotheses for e in h.evidence] + [e for c in self.claims for e in c.evidence]
        return sorted({e for e in named if e not in self.evidence})
