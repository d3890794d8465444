"""The engine's state between stages: one typed, checkpointable record.

Each stage reads only what earlier stages put here (plus the bundle path, to
reopen sources), so the runtime can checkpoint after any stage (this model's
JSON) and a fresh worker can resume at the next one.
"""

from __future__ import annotations

import copy
import time

from pydantic import BaseModel, ConfigDict, Field

from rootward.context.assemble import Context
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding, InvestigationResult, TraceEntry, Verification
from rootward.engine.budget import Budget, BudgetLimits
from rootward.engine.supervisor import Assessment

DEFAULT_HOPS = 2


class EngineState(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=False)

    bundle_path: str
    started_at: float = Field(description="epoch seconds; wall-clock budgets and timings count from here")
    budget: Budget
    hops: int = DEFAULT_HOPS
    gaps: list[str] = Field(default_factory=list)
    context: Context | None = None
    hypotheses: list[Hypothesis] = Field(default_factory=list)
    first_hypothesis_ms: int | None = None
    findings: list[Finding] = Field(default_factory=list)
    trace: list[TraceEntry] = Field(default_factory=list, description="every tool call the agents made")
    untested: list[str] = Field(default_factory=list)
    assessments: list[Assessment] = Field(default_factory=list)
    verification: Verification = Field(default_factory=Verification)
    result: InvestigationResult | None = None

    @classmethod
    def start(cls, bundle_path: str, limits: BudgetLimits | None = None) -> EngineState:
        now = time.time()
        budget = Budget(limits=limits or BudgetLimits(), started_at=now)
        return cls(bundle_path=bundle_path, started_at=now, budget=budget)

    def ms_since_start(self) -> int:
        return int((time.time() - self.started_at) * 1000)

    def fresh_budget(self) -> Budget:
        """A copy to charge: a stage never changes the state it was given, only the one it returns."""
        return copy.deepcopy(self.budget)

    def require_context(self) -> Context:
        if self.context is None:
            raise ValueError("the context has not been assembled yet (stage assemble_context runs first)")
        return self.context
