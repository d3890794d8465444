"""Runbook drafts with a model's summary, through the real OpenAI SDK against the local protocol server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from rootward.engine.runbook_writer import draft_body
from rootward.knowledge.drafts import ResolvedFindings, render_addition
from rootward.llm.client import LLMClient
from rootward.llm.settings import LLMSettings
from tests.fixtures.fake_llm import FakeLLMServer, Status

CITE = "metrics.csv:payment/db_connections_in_use@1767000000-1767000600"
FINDINGS = ResolvedFindings(
    investigation_id="inv-1",
    service="checkout",
    root_cause_entity="payment",
    fault_type="connection_pool_exhaustion",
    symptom="HighLatencyP99 on checkout",
    evidence=(CITE,),
    fix="rolled back the pool size change",
)
EXCERPTS = {CITE: "payment db_connections_in_use up from 12 to 50 (token=abc123secretsecret)"}


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _client(server: FakeLLMServer) -> LLMClient:
    return LLMClient(LLMSettings(provider="openai", base_url=server.base_url, api_key=SecretStr("t"), timeout_s=2.0))


def test_model_summary_is_added_below_the_templates_facts(server: FakeLLMServer) -> None:
    server.script.append(
        json.dumps(
            {
                "summary": "The payment service ran out of database connections after a pool change.",
                "checks": ["Compare payment's connections in use with its pool size."],
                "cites": [CITE, "logs.jsonl:999"],
            }
        )
    )
    body, prose = draft_body(FINDINGS, EXCERPTS, _client(server))
    assert prose == "llm"
    assert body.startswith(render_addition(FINDINGS).rstrip("\n"))  # every templated fact, unchanged
    assert "model-written" in body and "ran out of database connections" in body
    assert f"Rests on: `{CITE}`" in body and "logs.jsonl:999" not in body  # only cites it was given
    sent = server.requests[0]["body"]["messages"][1]["content"]
    assert "<log_content" in sent and "abc123secretsecret" not in sent


@pytest.mark.parametrize(
    "reply",
    [
        Status(500),
        json.dumps({"summary": "Made up.", "checks": [], "cites": ["metrics.csv:nope@1-2"]}),
        json.dumps({"summary": "", "checks": ["x"], "cites": [CITE]}),
    ],
    ids=["model-down", "uncited", "empty"],
)
def test_without_a_usable_answer_the_draft_is_the_template(server: FakeLLMServer, reply: object) -> None:
    server.script.extend([reply, reply])
    assert draft_body(FINDINGS, EXCERPTS, _client(server)) == (render_addition(FINDINGS), "template")


def test_rule_mode_never_calls_a_model() -> None:
    assert draft_body(FINDINGS, EXCERPTS, None) == (render_addition(FINDINGS), "template")
