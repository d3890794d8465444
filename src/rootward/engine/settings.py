"""The `engine:` section: the hard budgets of every investigation.

DESIGN's principle 6 ("bounded") as configuration: when one of these runs out,
the investigation publishes what it has, as inconclusive, with the gap named
(e.g. "cost cap $1.00 reached after 7 calls"). The defaults are those of
`BudgetLimits`, so a missing section changes nothing.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from rootward.engine.budget import BudgetLimits

_DEFAULT = BudgetLimits()


class EngineSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    wall_clock_s: float = Field(
        default=_DEFAULT.wall_clock_s, gt=0, description="Seconds from an investigation's start to its publication"
    )
    llm_calls: int = Field(
        default=_DEFAULT.llm_calls, ge=0, description="Model calls per investigation (repairs and agent turns count)"
    )
    tool_calls_per_agent: int = Field(
        default=_DEFAULT.tool_calls_per_agent,
        ge=1,
        description="Tool calls per specialist; the rest of its hypotheses are named as untested",
    )
    tokens_per_call: int = Field(
        default=_DEFAULT.tokens_per_call, gt=0, description="Estimated prompt tokens per model call"
    )
    cost_usd: float = Field(
        default=_DEFAULT.cost_usd,
        gt=0,
        description="USD per investigation, priced from `llm.prices` and each completion's reported usage; "
        "the call that reaches it is the last",
    )

    def budget_limits(self) -> BudgetLimits:
        return BudgetLimits(
            wall_clock_s=self.wall_clock_s,
            llm_calls=self.llm_calls,
            tool_calls_per_agent=self.tool_calls_per_agent,
            tokens_per_call=self.tokens_per_call,
            cost_usd=self.cost_usd,
        )
