"""A hypothesis: "fault type F at entity X", with the prior and evidence that put it on the list.

Pure data shared by the engine's ranking, its specialists, the reasoner and the
checkpointed engine state (pydantic validates it as a field of `EngineState`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rootward.domain.evidence import EvidenceRef


@dataclass
class Hypothesis:
    id: str
    entity: str
    fault_type: str
    prior: float
    evidence: list[EvidenceRef] = field(default_factory=list)
    rationale: list[str] = field(default_factory=list)
    source: str = "rules"  # rules | reasoner
    # The entity whose failure this one's evidence passes on, as the ranking read it (its victim discount).
    victim_of: str | None = None
