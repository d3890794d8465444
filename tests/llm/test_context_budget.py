"""Prompts cut to the model's context window: ranked evidence, the cut named, never an oversized request."""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from rootward.engine.dependencies import EngineDeps
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.llm_reasoner import build_reasoner
from rootward.llm.client import LLMClient, request_tokens
from rootward.llm.context_budget import budget_for, count_tokens, fit_lines
from rootward.llm.settings import LLMSettings
from rootward.llm.types import LLMUnavailable, Message
from tests.conftest import EXAMPLES
from tests.fixtures.fake_llm import Calls, FakeLLMServer

BUNDLE = EXAMPLES / "shop-deploy-regression-01"
AGENT_MARKER = "You are the model specialist"


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _settings(server: FakeLLMServer, window: int, output: int = 2048) -> LLMSettings:
    return LLMSettings(
        provider="openai",
        base_url=server.base_url,
        api_key=SecretStr("t"),
        model="tiny",
        context_windows={"tiny": window},
        max_output_tokens=output,
        timeout_s=5.0,
    )


def test_the_answer_gets_its_share_of_a_small_window_and_the_prompt_the_rest() -> None:
    small = budget_for("tiny", 2048, max_output_tokens=2048, input_cap=32_000)
    assert (small.output_tokens, small.prompt_tokens) == (512, 1536)
    big = budget_for("big", 128_000, max_output_tokens=2048, input_cap=32_000)
    assert (big.output_tokens, big.prompt_tokens) == (2048, 32_000)  # the operator's cap still binds


def test_lines_are_kept_in_rank_order_until_the_room_is_spent_and_the_cut_is_named() -> None:
    window = budget_for("tiny", 2048, 512, 32_000)
    lines = [f"[E{i}] {'x' * 90}" for i in range(1, 21)]  # ~33 tokens each
    fitted = fit_lines(lines, 200, window, what="evidence items")
    assert count_tokens(fitted.text) <= 200
    assert fitted.lines[: fitted.kept] == tuple(lines[: fitted.kept])  # a prefix: best first
    assert 0 < fitted.kept < 20 and fitted.cut == 20 - fitted.kept
    assert (
        fitted.note
        == f"{fitted.cut} of 20 evidence items left out, lowest-ranked first, to fit the 2048-token context of tiny"
    )
    assert fitted.lines[-1] == f"({fitted.note})"
    whole = fit_lines(lines[:2], 200, window)
    assert (whole.cut, whole.note, whole.lines) == (0, None, tuple(lines[:2]))


def test_a_first_line_longer_than_the_room_is_shortened_not_dropped() -> None:
    window = budget_for("tiny", 2048, 512, 32_000)
    fitted = fit_lines(["[E1] " + "y" * 3000, "[E2] short"], 150, window)
    assert fitted.kept == 1 and fitted.lines[0].startswith("[E1] yyy") and fitted.lines[0].endswith("…")
    assert count_tokens(fitted.text) <= 150


@pytest.mark.parametrize("output", [2048, 160])  # 160: the local benchmark's setting, which overflowed once
@pytest.mark.parametrize("bundle", ["shop-deploy-regression-01", "shop-connection-pool-exhaustion-00"])
def test_every_request_of_an_investigation_fits_a_small_window(server: FakeLLMServer, output: int, bundle: str) -> None:
    settings = _settings(server, 2048, output)
    window = settings.context_for("tiny")
    # Each structured step answers invalidly first, so its repair (which quotes the answer) must fit too.
    server.script.extend(
        ["{" + "x" * 600, json.dumps({"hypotheses": []}), "nope " * 100, json.dumps({"sentences": []})]
    )
    server.routes[AGENT_MARKER] = deque(
        [Calls((("conclude", {"verdict": "unclear", "cites": [], "reason": "?"}),))] * 2
    )
    result = investigate_bundle(EXAMPLES / bundle, EngineDeps(reasoner=build_reasoner(settings))).model_dump(
        mode="json"
    )
    assert server.requests, "the model was called"
    for request in server.requests:
        body = request["body"]
        sent = [Message("user", m.get("content") or "") for m in body["messages"]]
        tools = json.dumps(body["tools"]) if body.get("tools") else ""
        assert request_tokens(sent) + count_tokens(tools) <= window.prompt_tokens
        assert body["max_tokens"] == window.output_tokens
    propose = server.requests[0]["body"]["messages"][1]["content"]
    assert "left out, lowest-ranked first, to fit the 2048-token context of tiny" in propose
    gaps = " ".join(result["gaps"])
    assert "LLM context for hypotheses:" in gaps
    assert "does not fit" not in gaps
    # Evidence before tools: the model specialist is shown cites, even if fewer tools are offered.
    assert not re.search(r"(\d+) of \1 cites left out", gaps)


def test_a_cite_cut_from_the_prompt_cannot_support_a_hypothesis(server: FakeLLMServer) -> None:
    settings = _settings(server, 2048)
    rule = investigate_bundle(BUNDLE).model_dump(mode="json")
    cites = [e["cite"] for e in rule["evidence"].values()]
    server.script.append(json.dumps({"hypotheses": []}))
    investigate_bundle(BUNDLE, EngineDeps(reasoner=build_reasoner(settings)))
    propose = server.requests[0]["body"]["messages"][1]["content"]
    cut = [c for c in cites if f"[{c}]" not in propose]
    assert cut, "the 1024-token window forced a cut"
    server.requests.clear()
    ranked = {(h["entity"], h["fault_type"]) for h in rule["hypotheses"]}
    entity, fault = next(
        (e, f)
        for e in ("catalog-db", "cart-redis", "payment")
        for f in ("db_lock_contention", "oom_kill")
        if (e, f) not in ranked
    )
    server.script.append(
        json.dumps({"hypotheses": [{"entity": entity, "fault_type": fault, "rationale": "r", "cites": [cut[0]]}]})
    )
    result = investigate_bundle(BUNDLE, EngineDeps(reasoner=build_reasoner(settings))).model_dump(mode="json")
    pairs = {(h["entity"], h["fault_type"]) for h in result["hypotheses"]}
    assert pairs == {(h["entity"], h["fault_type"]) for h in rule["hypotheses"]}


def test_a_prompt_that_cannot_fit_is_refused_before_it_is_sent(server: FakeLLMServer) -> None:
    client = LLMClient(_settings(server, 512))
    from pydantic import BaseModel

    class Answer(BaseModel):
        ok: bool

    with pytest.raises(LLMUnavailable, match="does not fit the .* prompt tokens of the 512-token context of tiny"):
        client.structured("t", system="s", user="z" * 4000, schema=Answer)
    assert server.requests == []
