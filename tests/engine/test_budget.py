"""Budgets: exhaustion publishes what there is, as inconclusive, naming what was not tested."""

from __future__ import annotations

from pathlib import Path

import pytest

from rootward.engine.budget import Budget, BudgetExceeded, BudgetLimits
from rootward.engine.dependencies import EngineDeps
from rootward.engine.investigate import investigate_bundle


def test_exhausted_wall_clock_gives_inconclusive_with_each_untested_hypothesis_named(examples: Path) -> None:
    result = investigate_bundle(examples / "shop-disk-full-03", EngineDeps(limits=BudgetLimits(wall_clock_s=0.0)))
    assert result.status == "inconclusive"
    assert any("wall-clock budget" in g for g in result.gaps)
    for h in result.hypotheses:
        assert any(g.startswith(f"{h.id} not evaluated") for g in result.gaps), h.id
    assert result.hypotheses  # the deterministic ranking is still published


def test_tool_call_allowance_leaves_named_hypotheses_untested_by_that_specialist(examples: Path) -> None:
    result = investigate_bundle(
        examples / "shop-connection-pool-exhaustion-00", EngineDeps(limits=BudgetLimits(tool_calls_per_agent=1))
    )
    assert any("not evaluated by logs" in g and "tool calls" in g for g in result.gaps)
    assert result.hypotheses[0].entity == "payment"


def test_llm_budgets_refuse_before_the_call_that_would_break_them() -> None:
    budget = Budget(BudgetLimits(llm_calls=1, cost_usd=0.10, tokens_per_call=1000))
    budget.charge_llm(500, 0.05)
    with pytest.raises(BudgetExceeded, match="model calls"):
        budget.charge_llm(500, 0.01)
    with pytest.raises(BudgetExceeded, match="tokens"):
        Budget(BudgetLimits(tokens_per_call=10)).charge_llm(11, 0.0)
    with pytest.raises(BudgetExceeded, match="cost cap"):
        Budget(BudgetLimits(cost_usd=0.01)).charge_llm(10, 0.02)


def test_budget_survives_a_checkpoint_round_trip() -> None:
    budget = Budget(BudgetLimits(tool_calls_per_agent=3))
    budget.charge_tool("logs")
    again = Budget.from_dict(budget.to_dict())
    assert again.tool_calls == {"logs": 1} and again.limits.tool_calls_per_agent == 3
