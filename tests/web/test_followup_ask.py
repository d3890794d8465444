"""The console's question box and its API with a model configured: the model's cited answer, charged to the incident,
or the rule-mode answer with the reason, never an error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.roles import Role
from rootward.engine.followup import answer
from rootward.engine.followup_context import context_of
from rootward.engine.record import record_bundle
from rootward.settings import load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import InvestigationRow
from rootward.store.llm_calls import LLMCallRow
from rootward.store.users import add_user, create_token
from rootward.web.app import create_app
from tests.conftest import EXAMPLES
from tests.fixtures.fake_llm import FakeLLMServer, Status
from tests.web.signin import sign_in

BUNDLE = EXAMPLES / "shop-connection-pool-exhaustion-00"
QUESTION = "what config change happened before the incident?"


@dataclass
class Console:
    client: TestClient
    server: FakeLLMServer
    token: str
    incident_id: str
    config_id: str  # the evidence id of the config change the RCA cites
    sessions: sessionmaker[Session]

    def calls(self) -> list[LLMCallRow]:
        with self.sessions() as s:
            return list(s.scalars(select(LLMCallRow)))

    def ask_api(self, question: str = QUESTION) -> dict[str, object]:
        response = self.client.post(
            f"/api/v1/investigations/{self.incident_id}/ask",
            json={"question": question},
            headers={"authorization": f"Bearer {self.token}"},
        )
        assert response.status_code == 200, response.text
        return dict(response.json())


@pytest.fixture
def console(sqlite_migrated_url: str, tmp_path: Path) -> Iterator[Console]:
    engine = make_engine(sqlite_migrated_url)
    sessions = make_session_factory(engine)
    with sessions() as s, s.begin():
        add_user(s, "vic", Role.VIEWER)
        token = create_token(s, "vic")
        row = record_bundle(s, BUNDLE)
        incident_id = row.id
        config_id = next(e for e, item in row.investigation.evidence.items() if item.kind == "change")
    with FakeLLMServer() as server:
        llm = {"provider": "openai", "base_url": server.base_url, "api_key": "t", "model": "m", "timeout_s": 2.0}
        settings = load_settings(
            data_dir=tmp_path,
            database={"url": sqlite_migrated_url},
            intake={"auth": "none"},
            runtime={"workers": 0},
            llm=llm,
        )
        with TestClient(create_app(settings, engine=engine)) as client:
            yield Console(client, server, token, incident_id, config_id, sessions)
    engine.dispose()


def test_the_api_answer_is_the_models_with_checked_cites_and_the_call_is_charged(console: Console) -> None:
    text = f"The pool size of payment was lowered [{console.config_id}] [E999]."
    console.server.script.append(json.dumps({"answer": text, "cites": [console.config_id, "E999"]}))
    got = console.ask_api()
    assert got["source"] == "llm" and got["evidence"] == [console.config_id] and got["cites"] == []
    assert got["answer"] == f"The pool size of payment was lowered [{console.config_id}]."
    assert "dropped: E999" in str(got["note"])
    [call] = console.calls()
    assert (call.purpose, call.status, call.investigation_id) == ("followup", "ok", console.incident_id)


def test_a_model_that_is_down_gives_the_rule_mode_answer_with_the_reason_not_an_error(console: Console) -> None:
    console.server.script.append(Status(500))
    got = console.ask_api()
    assert [c.status for c in console.calls()] == ["error"]
    assert got["source"] == "rule" and "HTTP 500" in str(got["note"]) and "rule mode" in str(got["note"])
    with console.sessions() as s:
        row = s.get(InvestigationRow, console.incident_id)
        assert row is not None
    assert got["answer"] == answer(row.investigation, QUESTION, context_of(BUNDLE)).text


def test_the_console_page_shows_the_models_answer_and_how_it_was_written(console: Console) -> None:
    console.server.script.append(json.dumps({"answer": f"payment pool lowered [{console.config_id}]", "cites": []}))
    csrf = sign_in(console.client, console.token)
    page = console.client.post(f"/incidents/{console.incident_id}/ask", data={"question": QUESTION, "csrf_token": csrf})
    assert page.status_code == 200
    assert f"<pre>payment pool lowered [{console.config_id}]</pre>" in page.text
    assert "model-written from" in page.text and "every cite checked" in page.text
