"""A question in an incident's Slack thread with a model configured: answered by the model after Slack's 2xx,
its cites checked, its call charged to the incident; rule mode with the reason when the model fails."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from rootward.llm.settings import LLMSettings
from rootward.store.investigations import InvestigationRow
from rootward.store.llm_calls import LLMCallRow
from tests.chat.conftest import SlackWorld
from tests.chat.fake_slack import thread_event
from tests.fixtures.fake_llm import FakeLLMServer, Status


@pytest.fixture
def model(slack_world: SlackWorld) -> Iterator[FakeLLMServer]:
    """The world's server, its settings now naming a model on the local protocol server."""
    with FakeLLMServer() as server:
        app = slack_world.client.app
        llm = LLMSettings.model_validate(
            {"provider": "openai", "base_url": server.base_url, "api_key": "t", "model": "m", "timeout_s": 2.0}
        )
        app.state.settings = app.state.settings.model_copy(update={"llm": llm})  # type: ignore[attr-defined]
        yield server


def _reply(world: SlackWorld) -> str:
    world.dispatcher.deliver_once()
    return str(world.slack.thread_replies(world.thread_ts)[-1]["text"])


def _change_id(world: SlackWorld) -> str:
    with world.sessions() as session:
        row = session.get(InvestigationRow, world.incident_id)
        assert row is not None
        return next(e for e, item in row.investigation.evidence.items() if item.kind == "change")


def _calls(world: SlackWorld) -> list[LLMCallRow]:
    with world.sessions() as session:
        return list(session.scalars(select(LLMCallRow)))


def test_the_model_answers_the_threads_question_with_its_checked_cites(
    slack_world: SlackWorld, model: FakeLLMServer
) -> None:
    change = _change_id(slack_world)
    text = f"A deploy {slack_world.change_id} landed just before the errors [{change}] [E404]."
    model.script.append(json.dumps({"answer": text, "cites": [change, "E404"]}))
    event = thread_event("EvModel", "what changed before this?", slack_world.thread_ts, user="UVIC")
    assert slack_world.post_event(event).json() == {"ok": True, "outcome": "queued"}
    reply = _reply(slack_world)
    assert reply.startswith(f"A deploy {slack_world.change_id} landed just before the errors [{change}].")
    assert f"• {change} (change) `changes.json:{slack_world.change_id}`" in reply
    assert "E404" in reply.split("\n\n")[-1] and "E404" not in reply.split("\n\n")[0]  # named as dropped only
    assert [(c.purpose, c.status, c.investigation_id) for c in _calls(slack_world)] == [
        ("followup", "ok", slack_world.incident_id)
    ]


def test_a_model_that_is_down_leaves_the_rule_mode_answer_with_the_reason(
    slack_world: SlackWorld, model: FakeLLMServer
) -> None:
    model.script.append(Status(500))
    event = thread_event("EvDown", "what changed before this?", slack_world.thread_ts, user="UVIC")
    slack_world.post_event(event)
    reply = _reply(slack_world)
    assert slack_world.change_id in reply
    assert "the model could not answer (openai: HTTP 500); answered in rule mode" in reply


def test_an_unknown_sender_or_a_retry_costs_no_model_call(slack_world: SlackWorld, model: FakeLLMServer) -> None:
    slack_world.post_event(thread_event("EvWho", "what changed?", slack_world.thread_ts, user="USTRANGER"))
    assert _reply(slack_world).startswith("refused: USTRANGER is not a rootward user")
    assert model.requests == []
    model.script.append(json.dumps({"answer": "x", "cites": []}))
    event = thread_event("EvOnce", "what changed?", slack_world.thread_ts, user="UVIC")
    slack_world.post_event(event)
    slack_world.post_event(event, retry=1)
    assert len(model.requests) == 1
    slack_world.dispatcher.deliver_once()
    assert len(slack_world.slack.thread_replies(slack_world.thread_ts)) == 2  # the refusal and one answer


def test_commands_other_than_questions_are_still_answered_at_once(
    slack_world: SlackWorld, model: FakeLLMServer
) -> None:
    event = thread_event("EvAckM", "ack", slack_world.thread_ts, user="URITA")
    assert slack_world.post_event(event).json()["outcome"] == "answered"
    assert model.requests == []
