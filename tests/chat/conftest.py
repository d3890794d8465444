"""An incident whose RCA was posted to a (fake) Slack channel, and the people who talk about it in its thread."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.roles import Role
from rootward.engine.record import record_bundle
from rootward.notify.compose import compose_notification
from rootward.notify.outbox import OutboxDispatcher, enqueue
from rootward.notify.slack import SlackChannel
from rootward.settings import load_settings
from rootward.sim.generate import generate
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import add_user
from rootward.web.app import create_app
from tests.chat.fake_slack import CHANNEL, FakeSlack, fake_slack

SECRET = "test-signing-secret"
PEOPLE = {"vic": (Role.VIEWER, "UVIC"), "rita": (Role.RESPONDER, "URITA"), "anna": (Role.APPROVER, "UANNA")}


@dataclass
class SlackWorld:
    client: TestClient
    slack: FakeSlack
    sessions: sessionmaker[Session]
    dispatcher: OutboxDispatcher
    incident_id: str
    thread_ts: str  # the RCA post's ts: the thread's root
    change_id: str

    def post_event(self, payload: dict[str, object], *, retry: int | None = None):  # type: ignore[no-untyped-def]
        import json

        from tests.chat.fake_slack import signed_headers

        body = json.dumps(payload).encode()
        return self.client.post("/api/v1/slack/events", content=body, headers=signed_headers(SECRET, body, retry=retry))


@pytest.fixture
def slack_world(sqlite_migrated_url: str, tmp_path: Path) -> Iterator[SlackWorld]:
    bundle = generate(tmp_path / "bundles", 1, 7, faults=["deploy_regression"])[0].path
    sessions = make_session_factory(make_engine(sqlite_migrated_url))
    with sessions() as session, session.begin():
        row = record_bundle(session, bundle)
        change = next(e.cite for e in row.investigation.evidence.values() if e.kind == "change")
        note = compose_notification(
            row.investigation, title=row.title, service=row.service, tier="L1", severity="P2", investigation_id=row.id
        )
        enqueue(session, note, ["slack"], key=f"investigation:{row.id}")
        for name, (role, slack_id) in PEOPLE.items():
            add_user(session, name, role, slack_user_id=slack_id)
        incident_id = row.id
    with fake_slack() as slack:
        settings = load_settings(
            data_dir=tmp_path,
            database={"url": sqlite_migrated_url},
            intake={"auth": "none"},
            runtime={"workers": 0},
            notify={
                "slack": {"bot_token": "xoxb-test", "channel": CHANNEL, "api_url": slack.url, "signing_secret": SECRET}
            },
        )
        assert settings.notify.slack is not None
        dispatcher = OutboxDispatcher(sessions, {"slack": SlackChannel(settings.notify.slack)})
        assert dispatcher.deliver_once() == 1
        with TestClient(create_app(settings)) as client:
            yield SlackWorld(
                client, slack, sessions, dispatcher, incident_id, slack.posts[0]["ts"], change.split(":", 1)[1]
            )
