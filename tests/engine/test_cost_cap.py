"""The cost cap binds: model calls priced from their real usage stop the model at the cap.

Through the real OpenAI SDK against the local fake server: every completion
reports its token usage, the configured price turns it into dollars, and the
investigation's budget is charged with that after each call.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from rootward.domain.investigation import InvestigationResult
from rootward.engine.budget import BudgetLimits
from rootward.engine.dependencies import EngineDeps
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.llm_reasoner import build_reasoner
from rootward.llm.client import LLMClient
from rootward.llm.settings import LLMSettings, ModelPrice
from rootward.sim.generate import generate
from tests.fixtures.fake_llm import Calls, FakeLLMServer

PRICE = ModelPrice(input_per_mtok=200.0, output_per_mtok=200.0)  # dear enough that a few calls reach $1


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    [generated] = generate(tmp_path_factory.mktemp("cost-cap"), count=1, seed="cost-cap", faults=["deploy_regression"])
    return generated.path


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        srv.routes["suggest root-cause hypotheses"] = deque(['{"hypotheses": []}'] * 4)
        srv.routes["You write the summary"] = deque(['{"sentences": []}'] * 4)
        # The model specialist keeps asking for a tool, so it spends every turn it is given.
        srv.routes["You are the model specialist"] = deque([Calls((("dependents", {"entity": "nowhere"}),))] * 40)
        yield srv


def _investigate(server: FakeLLMServer, bundle: Path, cap: float) -> tuple[InvestigationResult, LLMClient]:
    settings = LLMSettings(
        provider="openai", base_url=server.base_url, api_key=SecretStr("t"), model="m", prices={"m": PRICE}
    )
    client = LLMClient(settings)
    deps = EngineDeps(reasoner=build_reasoner(settings, client=client), limits=BudgetLimits(cost_usd=cap))
    return investigate_bundle(bundle, deps), client


def test_model_calls_costing_more_than_the_cap_stop_the_investigation_with_the_cap_as_gap(
    server: FakeLLMServer, bundle: Path
) -> None:
    uncapped, _ = _investigate(server, bundle, cap=1000.0)
    uncapped_calls = len(server.requests)
    server.requests.clear()
    for route in server.routes.values():
        route.extend(list(route))  # the same script again

    result, client = _investigate(server, bundle, cap=1.00)

    calls = len(server.requests)
    costs = [c.cost_usd for c in client.calls]
    assert len(costs) == calls and calls < uncapped_calls  # the cap stopped calls that would have been made
    assert sum(costs[:-1]) < 1.00 <= sum(costs)  # the call that reached the cap was the last one
    gap = f"cost cap $1.00 reached after {calls} calls"
    assert result.status == "inconclusive" and uncapped.status == "validated"
    assert f"budget exhausted: {gap}" in result.gaps
    assert f"LLM unavailable for the summary ({gap}); rule mode used" in result.gaps
    assert result.hypotheses and result.claims  # what it has is still published
    assert [h.entity for h in result.hypotheses[:1]] == [h.entity for h in uncapped.hypotheses[:1]]


def test_calls_under_the_cap_are_charged_but_exhaust_nothing(server: FakeLLMServer, bundle: Path) -> None:
    result, client = _investigate(server, bundle, cap=1000.0)
    assert sum(c.cost_usd for c in client.calls) > 0
    assert not any("cost cap" in g for g in result.gaps)
    assert result.status == "validated"
