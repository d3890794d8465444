"""LLM mode through the real OpenAI SDK against a local protocol server, and its fallback chain."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from rootward.engine.dependencies import EngineDeps
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.llm_reasoner import build_reasoner
from rootward.llm.settings import LLMSettings
from tests.conftest import EXAMPLES
from tests.fixtures.fake_llm import Calls, Delay, FakeLLMServer, Status

BUNDLE = EXAMPLES / "shop-deploy-regression-01"
AGENT_MARKER = "You are the model specialist"


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def rule_result() -> dict[str, object]:
    return investigate_bundle(BUNDLE).model_dump(mode="json")


def _llm(server: FakeLLMServer, **kw: object) -> EngineDeps:
    fields: dict[str, object] = {"timeout_s": 2.0, **kw}
    settings = LLMSettings(provider="openai", base_url=server.base_url, api_key=SecretStr("t"), model="m", **fields)  # type: ignore[arg-type]
    return EngineDeps(reasoner=build_reasoner(settings))


def _top(result: dict[str, object]) -> tuple[str, str]:
    top = result["hypotheses"][0]  # type: ignore[index]
    return top["entity"], top["fault_type"]


def test_llm_adds_a_cited_hypothesis_and_prose_without_dropping_the_top_one(
    server: FakeLLMServer, rule_result: dict[str, object]
) -> None:
    cite = next(e["cite"] for e in rule_result["evidence"].values() if e["kind"] == "change")  # type: ignore[union-attr]
    server.script.extend(
        [
            json.dumps(
                {
                    "hypotheses": [
                        {
                            "entity": "catalog-db",
                            "fault_type": "db_lock_contention",
                            "rationale": "slow queries",
                            "cites": [cite],
                        },
                        {"entity": "not-an-entity", "fault_type": "oom_kill", "rationale": "made up", "cites": [cite]},
                        {
                            "entity": "catalog",
                            "fault_type": "telepathy",
                            "rationale": "bad vocabulary",
                            "cites": [cite],
                        },
                    ]
                }
            ),
            json.dumps(
                {
                    "sentences": [
                        {"text": "A catalog deploy broke requests.", "evidence": ["E1"]},
                        {"text": "Invented sentence.", "evidence": ["E999"]},
                    ]
                }
            ),
        ]
    )
    unclear = Calls((("conclude", {"verdict": "unclear", "cites": [], "reason": "cannot tell"}),))
    server.routes[AGENT_MARKER] = deque([unclear] * 2)
    result = investigate_bundle(BUNDLE, _llm(server)).model_dump(mode="json")
    assert _top(result) == _top(rule_result)
    pairs = {(h["entity"], h["fault_type"]) for h in result["hypotheses"]}
    assert ("not-an-entity", "oom_kill") not in pairs and ("catalog", "telepathy") not in pairs
    texts = [c["text"] for c in result["claims"]]
    assert "A catalog deploy broke requests." in texts and "Invented sentence." not in texts
    assert all(e in result["evidence"] for c in result["claims"] for e in c["evidence"])
    sent = server.requests[0]["body"]["messages"][1]["content"]
    assert "<log_content" in sent


@pytest.mark.parametrize(
    "script",
    [
        [Status(500), Status(500)],
        ["not json at all", '{"hypotheses": "nope"}', "still not json", "{}"],
        [Delay(1.5), Delay(1.5)],
    ],
    ids=["provider-500", "invalid-json-twice", "timeout"],
)
def test_fallback_chain_ends_in_rule_mode_with_the_same_shape_and_a_named_gap(
    server: FakeLLMServer, rule_result: dict[str, object], script: list[object]
) -> None:
    server.script.extend(script)
    result = investigate_bundle(BUNDLE, _llm(server, timeout_s=0.5)).model_dump(mode="json")
    assert set(result) == set(rule_result)
    assert [(h["entity"], h["fault_type"]) for h in result["hypotheses"]] == [
        (h["entity"], h["fault_type"])
        for h in rule_result["hypotheses"]  # type: ignore[union-attr]
    ]
    assert any("LLM unavailable" in g and "rule mode used" in g for g in result["gaps"])
