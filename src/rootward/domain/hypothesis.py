"""A hypothesis: "fault type F at entity X", with the prior and evidence that put it on the list.

Pure data shared by the engine's ranking, its specialists, the reasoner and the
checkpointed engine state (pydantic validates it as a field of `EngineState`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

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


def renumbered(kept: Sequence[Hypothesis]) -> list[Hypothesis]:
    """What is left of a ranking once some were dropped: numbered H1.. in order, priors summing to one,
    everything else (evidence, rationale, the victim reading) kept."""
    total = sum(h.prior for h in kept) or 1.0
    return [replace(h, id=f"H{i}", prior=round(h.prior / total, 4)) for i, h in enumerate(kept, start=1)]
