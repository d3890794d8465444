from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import BaseModel, SecretStr

from rootward.engine.budget import Budget, BudgetExceeded, BudgetLimits
from rootward.llm.client import LLMClient, extract_json
from rootward.llm.settings import LLMSettings, ModelPrice
from rootward.llm.types import LLMUnavailable
from tests.fixtures.fake_llm import Delay, FakeLLMServer, Status


class Verdict(BaseModel):
    entity: str
    confidence: float


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _client(server: FakeLLMServer, **overrides: object) -> LLMClient:
    fields: dict[str, object] = {"timeout_s": 2.0, **overrides}
    settings = LLMSettings(
        provider="openai",
        base_url=server.base_url,
        api_key=SecretStr("test"),
        model="small",
        models={"P1": "large", "escalate": "largest"},
        prices={"large": ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0)},
        **fields,  # type: ignore[arg-type]
    )
    return LLMClient(settings)


def _ask(client: LLMClient, **kw: object) -> Verdict:
    return client.structured("test", system="Pick the cause.", user="evidence", schema=Verdict, **kw)  # type: ignore[arg-type]


def test_valid_reply_is_parsed_through_the_openai_sdk(server: FakeLLMServer) -> None:
    server.script.append('{"entity": "payment-db", "confidence": 0.7}')
    client = _client(server)
    assert _ask(client) == Verdict(entity="payment-db", confidence=0.7)
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["model"] == "small"
    assert "<log_content>" in sent["body"]["messages"][0]["content"]


def test_model_is_chosen_by_severity_tier_and_cost_is_accounted(server: FakeLLMServer) -> None:
    server.script.append('{"entity": "a", "confidence": 0.5}')
    client = _client(server)
    budget = Budget()
    _ask(client, severity="P1", budget=budget)
    assert server.requests[0]["body"]["model"] == "large"
    assert budget.llm_calls == 1 and budget.cost_usd > 0
    assert client.calls[0].cost_usd == pytest.approx(budget.cost_usd)


def test_invalid_json_is_repaired_once(server: FakeLLMServer) -> None:
    server.script.extend(["I think it's the DB", '```json\n{"entity": "db", "confidence": 0.6}\n```'])
    assert _ask(_client(server)).entity == "db"
    repair = server.requests[1]["body"]["messages"][-1]["content"]
    assert "not valid" in repair


def test_invalid_json_twice_is_unavailable(server: FakeLLMServer) -> None:
    server.script.extend(["nope", '{"entity": 3}'])
    with pytest.raises(LLMUnavailable, match="invalid structured output twice"):
        _ask(_client(server))


def test_provider_500_is_unavailable_and_opens_the_breaker(server: FakeLLMServer) -> None:
    server.script.extend([Status(500), Status(500)])
    client = _client(server, breaker_failures=2)
    for _ in range(2):
        with pytest.raises(LLMUnavailable, match="HTTP 500"):
            _ask(client)
    with pytest.raises(LLMUnavailable, match="circuit open"):
        _ask(client)
    assert len(server.requests) == 2


def test_timeout_is_unavailable(server: FakeLLMServer) -> None:
    server.script.append(Delay(1.5, '{"entity": "x", "confidence": 0.1}'))
    with pytest.raises(LLMUnavailable, match="timed out"):
        _ask(_client(server, timeout_s=0.3))


def test_budget_spent_refuses_before_calling(server: FakeLLMServer) -> None:
    client = _client(server)
    with pytest.raises(BudgetExceeded, match="all 0 model calls used"):
        _ask(client, budget=Budget(BudgetLimits(llm_calls=0)))
    assert server.requests == []


def test_rule_mode_has_no_provider() -> None:
    client = LLMClient(LLMSettings(provider="none"))
    assert not client.enabled
    with pytest.raises(LLMUnavailable, match="rule mode"):
        _ask(client)


def test_anthropic_sdk_path(server: FakeLLMServer) -> None:
    server.script.append('{"entity": "cache", "confidence": 0.4}')
    settings = LLMSettings(provider="anthropic", base_url=server.anthropic_url, api_key=SecretStr("k"), model="m")
    assert _ask(LLMClient(settings)).entity == "cache"
    assert server.requests[0]["path"] == "/v1/messages"
    assert server.requests[0]["body"]["system"].startswith("You are rootward")


def test_extract_json_from_prose() -> None:
    assert extract_json('Sure! {"a": 1} hope this helps') == '{"a": 1}'
    with pytest.raises(ValueError):
        extract_json("no json here")
