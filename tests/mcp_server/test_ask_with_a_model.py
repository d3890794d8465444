"""The MCP `ask` tool with a model configured: the same answerer as every surface, through the SDK's own client."""

from __future__ import annotations

import dataclasses
import json

from rootward.llm.settings import LLMSettings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import InvestigationRow
from tests.fixtures.fake_llm import FakeLLMServer, Status
from tests.mcp_server.conftest import World
from tests.mcp_server.test_tools import _deps, call


def _change_evidence_id(world: World) -> str:
    with make_session_factory(make_engine(world.db_url))() as session:
        row = session.get(InvestigationRow, world.incident_id)
        assert row is not None
        return next(e for e, item in row.investigation.evidence.items() if item.kind == "change")


def _llm(server: FakeLLMServer) -> LLMSettings:
    return LLMSettings.model_validate(
        {"provider": "openai", "base_url": server.base_url, "api_key": "t", "model": "m", "timeout_s": 2.0}
    )


def test_ask_answers_with_the_models_text_and_only_the_cites_it_was_shown(world: World) -> None:
    change = _change_evidence_id(world)
    with FakeLLMServer() as server:
        server.script.append(json.dumps({"answer": f"{world.change_id} [{change}]", "cites": [change, "E77"]}))
        deps = dataclasses.replace(_deps(world, world.viewer), llm=_llm(server))
        out = call(deps, "ask", investigation_id=world.incident_id, question="what changed before this?")
    got = out.structured_content
    assert got is not None and not out.is_error
    assert got["source"] == "llm" and got["answer"] == f"{world.change_id} [{change}]"
    assert [e["id"] for e in got["evidence"]] == [change] and got["evidence"][0]["data"]
    assert "dropped: E77" in got["note"]


def test_ask_with_a_failing_model_is_the_rule_mode_answer_not_a_tool_error(world: World) -> None:
    with FakeLLMServer() as server:
        server.script.append(Status(503))
        deps = dataclasses.replace(_deps(world, world.viewer), llm=_llm(server))
        out = call(deps, "ask", investigation_id=world.incident_id, question="what changed before this?")
    got = out.structured_content
    assert got is not None and not out.is_error
    assert got["source"] == "rule" and world.change_id in got["answer"] and "HTTP 503" in got["note"]
