"""Hard budgets of one investigation.

When any runs out the investigation stops where it is and publishes what it
has as inconclusive, naming each untested hypothesis and why. The budget is a
plain record so a checkpoint can carry it across a worker restart (wall clock
is measured from the investigation's start time, not from the process's).

A model call is asked for before it is sent (`reserve_llm`: wall clock, tokens,
calls, and whether the cost cap is already reached) and charged after it with
what the provider reported (`charge_llm`: the completion's usage priced by the
configured model prices). A call's cost is known only once it is made, so the
call that crosses the cap is the last one: the cap is then "reached" and every
later call is refused with the same gap.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from rootward.llm.types import Usage


@dataclass(frozen=True)
class BudgetLimits:
    """The limits of one investigation; the `engine:` settings section makes them."""

    wall_clock_s: float = 300.0
    llm_calls: int = 20
    tool_calls_per_agent: int = 8
    tokens_per_call: int = 32_000
    cost_usd: float = 1.00


class BudgetExceeded(Exception):
    """A budget ran out; `resource` names which, the message is the gap shown to the user."""

    def __init__(self, resource: str, detail: str) -> None:
        super().__init__(detail)
        self.resource = resource
        self.detail = detail


@dataclass
class Budget:
    limits: BudgetLimits = field(default_factory=BudgetLimits)
    started_at: float = field(default_factory=time.time)
    llm_calls: int = 0
    cost_usd: float = 0.0
    tool_calls: dict[str, int] = field(default_factory=dict)
    exhausted: str | None = None  # first exhaustion, as the user-facing reason
    notes: list[str] = field(default_factory=list)  # degradations to report as gaps (e.g. LLM down)

    def elapsed_s(self) -> float:
        return time.time() - self.started_at

    def _fail(self, resource: str, detail: str) -> BudgetExceeded:
        if self.exhausted is None:
            self.exhausted = detail
        return BudgetExceeded(resource, detail)

    def check_wall_clock(self) -> None:
        if self.elapsed_s() > self.limits.wall_clock_s:
            raise self._fail("wall_clock", f"wall-clock budget of {self.limits.wall_clock_s:.0f} s exhausted")

    def charge_tool(self, agent: str) -> None:
        self.check_wall_clock()
        used = self.tool_calls.get(agent, 0)
        if used >= self.limits.tool_calls_per_agent:
            # One agent's allowance: its untested hypotheses are named, the investigation goes on.
            raise BudgetExceeded(
                "tool_calls", f"{agent} specialist used all {self.limits.tool_calls_per_agent} tool calls"
            )
        self.tool_calls[agent] = used + 1

    def reserve_llm(self, tokens: int) -> None:
        """Before a model call of about `tokens` prompt tokens: raise if it may not be made, else count it."""
        self.check_wall_clock()
        if tokens > self.limits.tokens_per_call:
            raise self._fail(
                "tokens", f"a model call needed {tokens} tokens, over the {self.limits.tokens_per_call} cap"
            )
        if self.llm_calls >= self.limits.llm_calls:
            raise self._fail("llm_calls", f"all {self.limits.llm_calls} model calls used")
        if self.cost_usd >= self.limits.cost_usd:
            raise self._fail("cost", self._cost_cap_reached())
        self.llm_calls += 1

    def charge_llm(self, usage: Usage) -> None:
        """After a model call: add its real cost; reaching the cap ends the model's part of the investigation."""
        self.cost_usd += usage.cost_usd
        if self.cost_usd >= self.limits.cost_usd and self.exhausted is None:
            self.exhausted = self._cost_cap_reached()

    def _cost_cap_reached(self) -> str:
        calls = f"{self.llm_calls} call" + ("" if self.llm_calls == 1 else "s")
        return f"cost cap ${self.limits.cost_usd:.2f} reached after {calls}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Budget:
        return cls(
            limits=BudgetLimits(**data.get("limits", {})),
            started_at=float(data.get("started_at", time.time())),
            llm_calls=int(data.get("llm_calls", 0)),
            cost_usd=float(data.get("cost_usd", 0.0)),
            tool_calls={str(k): int(v) for k, v in data.get("tool_calls", {}).items()},
            exhausted=data.get("exhausted"),
            notes=[str(n) for n in data.get("notes", [])],
        )
