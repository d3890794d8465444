"""Tool-using turns through the official SDKs: calls come back typed, results go back in each protocol's shape."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from rootward.llm.client import LLMClient
from rootward.llm.settings import LLMSettings
from rootward.llm.types import Message, ToolSpec
from tests.fixtures.fake_llm import Calls, FakeLLMServer

LOOKUP = ToolSpec(
    "metric_anomalies",
    "anomalous series of an entity",
    {"type": "object", "properties": {"entity": {"type": "string"}}, "required": ["entity"]},
)


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _client(server: FakeLLMServer, provider: str) -> LLMClient:
    url = server.base_url if provider == "openai" else server.anthropic_url
    settings = LLMSettings(provider=provider, base_url=url, api_key=SecretStr("t"), timeout_s=2.0)  # type: ignore[arg-type]
    return LLMClient(settings)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_tool_call_round_trip_in_the_providers_own_protocol(server: FakeLLMServer, provider: str) -> None:
    server.script.extend([Calls((("metric_anomalies", {"entity": "payment"}),), "checking payment"), "done"])
    client = _client(server, provider)
    messages = [Message("system", "You test hypotheses."), Message("user", "Is payment saturated?")]
    first = client.converse("agent", messages, [LOOKUP])
    [call] = first.tool_calls
    assert (call.name, call.arguments) == ("metric_anomalies", {"entity": "payment"})
    messages += [
        Message("assistant", first.text, tool_calls=first.tool_calls),
        Message("tool", '{"status": "ok"}', tool_call_id=call.id),
    ]
    second = client.converse("agent", messages, [LOOKUP])
    assert second.text == "done" and second.tool_calls == ()

    first_body, second_body = (r["body"] for r in server.requests)
    sent = second_body["messages"]
    if provider == "openai":
        assert first_body["tools"][0]["function"]["name"] == "metric_anomalies"
        assert "response_format" not in first_body  # tools, not JSON mode
        assert sent[2]["tool_calls"][0]["id"] == call.id
        assert sent[3] == {"role": "tool", "tool_call_id": call.id, "content": '{"status": "ok"}'}
    else:
        assert first_body["tools"][0]["input_schema"]["required"] == ["entity"]
        assert second_body["system"] == "You test hypotheses."
        assert sent[1]["content"][-1] == {
            "type": "tool_use",
            "id": call.id,
            "name": "metric_anomalies",
            "input": {"entity": "payment"},
        }
        assert sent[2] == {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call.id, "content": '{"status": "ok"}'}],
        }
    assert [c.purpose for c in client.calls] == ["agent", "agent"] and all(c.status == "ok" for c in client.calls)
