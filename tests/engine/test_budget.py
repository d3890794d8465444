"""Budgets: exhaustion publishes what there is, as inconclusive, naming what was not tested."""

from __future__ import annotations

from pathlib import Path

import pytest

from rootward.engine.budget import Budget, BudgetExceeded, BudgetLimits
from rootward.engine.dependencies import EngineDeps
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.settings import EngineSettings
from rootward.llm.types import Usage


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
    budget.reserve_llm(500)
    budget.charge_llm(Usage(400, 100, 0.05))
    with pytest.raises(BudgetExceeded, match="model calls"):
        budget.reserve_llm(500)
    with pytest.raises(BudgetExceeded, match="tokens"):
        Budget(BudgetLimits(tokens_per_call=10)).reserve_llm(11)


def test_the_call_that_reaches_the_cost_cap_is_the_last_and_names_the_calls_made() -> None:
    budget = Budget(BudgetLimits(cost_usd=1.00))
    for _ in range(3):
        budget.reserve_llm(100)
        budget.charge_llm(Usage(1000, 100, 0.40))
    assert budget.exhausted == "cost cap $1.00 reached after 3 calls"
    with pytest.raises(BudgetExceeded, match=r"cost cap \$1\.00 reached after 3 calls"):
        budget.reserve_llm(100)
    assert budget.llm_calls == 3 and budget.cost_usd == pytest.approx(1.20)


def test_spending_under_the_cost_cap_exhausts_nothing() -> None:
    budget = Budget(BudgetLimits(cost_usd=1.00))
    budget.reserve_llm(100)
    budget.charge_llm(Usage(1000, 100, 0.99))
    budget.reserve_llm(100)
    assert budget.exhausted is None and budget.llm_calls == 2


def test_engine_settings_make_the_budget_limits_and_default_to_them() -> None:
    assert EngineSettings().budget_limits() == BudgetLimits()
    limits = EngineSettings(cost_usd=0.25, llm_calls=3, wall_clock_s=60).budget_limits()
    assert (limits.cost_usd, limits.llm_calls, limits.wall_clock_s) == (0.25, 3, 60.0)


def test_budget_survives_a_checkpoint_round_trip() -> None:
    budget = Budget(BudgetLimits(tool_calls_per_agent=3))
    budget.charge_tool("logs")
    again = Budget.from_dict(budget.to_dict())
    assert again.tool_calls == {"logs": 1} and again.limits.tool_calls_per_agent == 3
