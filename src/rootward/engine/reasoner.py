"""The reasoning hooks an LLM can fill; rule mode is the default implementation.

The engine calls a `Reasoner` at three points: after the deterministic
ranking (propose extra hypotheses), after the specialists (test the
hypotheses the rules left undecided, through tools it opens from the
engine's tool layer, and classify them) and when writing the RCA (prose).
The rule reasoner adds nothing and changes nothing, so rule mode is exactly
the deterministic pipeline. An LLM reasoner (`llm/`) may add hypotheses and
decide, with cites, what direct evidence left silent or split, but its
hypotheses never displace the deterministic ranking, it never overrides
direct evidence that agrees, and raw facts are always kept beside its prose.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rootward.context.assemble import Context
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Claim, Finding
from rootward.engine.budget import Budget
from rootward.engine.tools import ToolLayer

# (agent name, manifest) -> a tool layer charged to that agent and audited like the specialists'.
OpenTools = Callable[[str, frozenset[str]], ToolLayer]
Pending = list[tuple[Hypothesis, list[Finding]]]


class Reasoner(Protocol):
    name: str

    def propose(self, ctx: Context, ranked: list[Hypothesis], budget: Budget) -> list[Hypothesis]:
        """Extra hypotheses (entity and fault type from the closed vocabulary); may be empty."""
        ...

    def classify(self, ctx: Context, pending: Pending, open_tools: OpenTools, budget: Budget) -> list[Finding]:
        """Findings to add for hypotheses the rules left undecided (best first); may be empty."""
        ...

    def write(self, ctx: Context, claims: list[Claim], budget: Budget) -> list[Claim]:
        """Prose claims to show above the templated ones; each must cite existing evidence ids."""
        ...


class RuleReasoner:
    name = "rules"

    def propose(self, ctx: Context, ranked: list[Hypothesis], budget: Budget) -> list[Hypothesis]:
        return []

    def classify(self, ctx: Context, pending: Pending, open_tools: OpenTools, budget: Budget) -> list[Finding]:
        return []

    def write(self, ctx: Context, claims: list[Claim], budget: Budget) -> list[Claim]:
        return []
