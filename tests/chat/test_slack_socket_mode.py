"""Slack thread Q&A over Socket Mode: slack_sdk's own client against a local `apps.connections.open` and websocket.

Every envelope is acknowledged at once by its envelope id, the event inside
is answered once by event id (over either transport), and the answer goes
out through the outbox with `chat.postMessage` to the local Web API.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rootward.actions.approvals import request_approval
from rootward.chat.slack_socket import SlackSocketMode, SocketEvent
from rootward.domain.roles import Role
from rootward.settings import ConfigError, load_settings
from rootward.store.approvals import ApprovalRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import add_user
from rootward.store.worldmodel import DbPredictionLedger
from rootward.worldmodel.prediction_gate import ProposedAction, commit_prediction
from tests.chat.conftest import SlackWorld
from tests.chat.fake_slack import APP_TOKEN, BOT_USER, CHANNEL, thread_event
from tests.chat.fake_slack_socket import SocketModeServer, socket_mode_server
from tests.sources.local_http import Reply, Request, serve


@dataclass
class SocketWorld:
    world: SlackWorld
    server: SocketModeServer
    events: list[SocketEvent] = field(default_factory=list)
    slow_work_s: float = 0.0

    def record(self, event: SocketEvent) -> None:
        time.sleep(self.slow_work_s)  # work done after the ack: it must never hold the ack back
        self.events.append(event)

    def outcome_of(self, envelope_id: str, timeout_s: float = 10) -> str | None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = [e for e in self.events if e.envelope_id == envelope_id]
            if found:
                return found[0].outcome
            time.sleep(0.02)
        raise AssertionError(f"envelope {envelope_id} was never handled")

    def replies(self) -> list[str]:
        self.world.dispatcher.deliver_once()
        return [str(p["text"]) for p in self.world.slack.thread_replies(self.world.thread_ts)]


def _listen(world: SlackWorld, token: str, on_event: object) -> tuple[threading.Event, threading.Thread]:
    listener = SlackSocketMode(
        token,
        world.sessions,
        api_url=world.slack.url,
        reconnect_s=0.2,
        on_event=on_event,  # type: ignore[arg-type]
    )
    stop = threading.Event()
    thread = threading.Thread(target=listener.run, args=(stop,), name="socket-mode-under-test")
    thread.start()
    return stop, thread


@pytest.fixture
def socket_world(slack_world: SlackWorld) -> Iterator[SocketWorld]:
    with socket_mode_server() as server:
        slack_world.slack.socket_url = server.url
        world = SocketWorld(slack_world, server)
        stop, thread = _listen(slack_world, APP_TOKEN, world.record)
        try:
            server.wait_connections(1)
            yield world
        finally:
            stop.set()
            thread.join(timeout=15)
            assert not thread.is_alive(), "the Socket Mode loop did not stop"


def test_a_mention_over_socket_mode_is_acked_at_once_and_answered_in_the_thread_citing_the_deploy(
    socket_world: SocketWorld,
) -> None:
    world = socket_world.world
    assert world.slack.connections_opened == 1  # apps.connections.open with the app-level token
    envelope = socket_world.server.send_event(
        thread_event("EvSock1", "what changed before this?", world.thread_ts, user="UVIC")
    )
    assert socket_world.server.ack_of(envelope) < 3.0
    assert socket_world.outcome_of(envelope) == "answered"
    [reply] = socket_world.replies()
    assert world.change_id in reply and f"`changes.json:{world.change_id}`" in reply
    assert world.slack.thread_replies(world.thread_ts)[0]["channel"] == CHANNEL


def test_slacks_retries_of_an_envelope_are_each_acked_and_answered_once(socket_world: SocketWorld) -> None:
    event = thread_event("EvSockRetry", "what changed before this?", socket_world.world.thread_ts, user="URITA")
    envelopes = [socket_world.server.send_event(event, retry_attempt=n) for n in range(3)]
    assert all(socket_world.server.ack_of(e) < 3.0 for e in envelopes)
    outcomes = sorted(str(socket_world.outcome_of(e)) for e in envelopes)
    assert outcomes == ["answered", "duplicate", "duplicate"]
    assert len(socket_world.replies()) == 1


def test_the_ack_goes_out_before_slow_work_on_the_event(socket_world: SocketWorld) -> None:
    socket_world.slow_work_s = 4.0
    envelope = socket_world.server.send_event(
        thread_event("EvSockSlow", "what changed?", socket_world.world.thread_ts, user="UVIC")
    )
    assert socket_world.server.ack_of(envelope) < 3.0
    assert socket_world.outcome_of(envelope) == "answered"


def test_an_event_that_came_over_http_too_is_answered_once(socket_world: SocketWorld) -> None:
    event = thread_event("EvBoth", "what changed before this?", socket_world.world.thread_ts, user="UVIC")
    assert socket_world.world.post_event(event).json()["outcome"] == "answered"
    envelope = socket_world.server.send_event(event)
    assert socket_world.outcome_of(envelope) == "duplicate"
    assert len(socket_world.replies()) == 1


def test_the_bots_own_reply_over_socket_mode_is_acked_and_ignored(socket_world: SocketWorld) -> None:
    own = thread_event("EvSockBot", "Deploy ...", socket_world.world.thread_ts, user=BOT_USER, kind="message")
    envelope = socket_world.server.send_event(own)
    socket_world.server.ack_of(envelope)
    assert socket_world.outcome_of(envelope) == "ignored"
    assert socket_world.replies() == []


def test_when_slack_asks_for_a_new_connection_the_client_opens_one_and_events_keep_coming(
    socket_world: SocketWorld,
) -> None:
    socket_world.server.disconnect()
    socket_world.server.wait_connections(2)
    assert socket_world.world.slack.connections_opened == 2  # a fresh URL from apps.connections.open
    envelope = socket_world.server.send_event(
        thread_event("EvAfterRefresh", "what changed?", socket_world.world.thread_ts, user="UVIC")
    )
    # slack_sdk's built-in client reads the new connection once its read on the old one times out (3 s), so the
    # first envelope after a refresh may be acked late; Slack then retries it, and the retry is a duplicate.
    took = socket_world.server.ack_of(envelope)
    print(f"first ack after a refresh: {took:.2f} s")
    assert socket_world.outcome_of(envelope) == "answered"
    assert len(socket_world.replies()) == 1


def test_a_refused_app_token_is_logged_with_the_fix_and_retried(
    slack_world: SlackWorld, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="rootward.chat.slack_socket")
    with socket_mode_server() as server:
        slack_world.slack.socket_url = server.url
        stop, thread = _listen(slack_world, "xapp-revoked", lambda _event: None)
        time.sleep(1.0)
        stop.set()
        thread.join(timeout=15)
    assert not thread.is_alive() and server.connections == 0
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert refused == [
        "Slack Socket Mode: apps.connections.open refused: invalid_auth (chat.slack.app_token: an xapp- token "
        "with connections:write); retrying every 60 s at most"
    ]  # logged once, however often it retried


@pytest.mark.parametrize(
    ("chat", "notify", "error"),
    [
        ({"slack": {"socket_mode": True}}, {"slack": {"bot_token": "xoxb-1"}}, "app-level token (xapp-...)"),
        ({"slack": {"socket_mode": True, "app_token": "xoxb-1"}}, {"slack": {"bot_token": "xoxb-1"}}, "xapp-"),
        ({"slack": {"socket_mode": True, "app_token": "xapp-1"}}, {}, "notify.slack.bot_token"),
    ],
)
def test_socket_mode_config_needs_an_app_token_and_a_bot_token(
    tmp_path: Path, chat: dict[str, object], notify: dict[str, object], error: str
) -> None:
    with pytest.raises(ConfigError, match=r"(?s)chat|socket_mode") as raised:
        load_settings(data_dir=tmp_path, chat=chat, notify=notify)
    assert error in str(raised.value)


def test_an_event_that_cannot_be_answered_is_still_acked_and_logged_with_its_id(
    slack_world: SlackWorld, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = make_session_factory(make_engine(f"sqlite:///{tmp_path / 'not-migrated.db'}"))
    events: list[SocketEvent] = []
    with socket_mode_server() as server:
        slack_world.slack.socket_url = server.url
        listener = SlackSocketMode(APP_TOKEN, broken, api_url=slack_world.slack.url, on_event=events.append)
        stop = threading.Event()
        thread = threading.Thread(target=listener.run, args=(stop,))
        thread.start()
        try:
            server.wait_connections(1)
            envelope = server.send_event(thread_event("EvNoDb", "what changed?", slack_world.thread_ts, user="UVIC"))
            assert server.ack_of(envelope) < 3.0
            deadline = time.monotonic() + 10
            while not events and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            stop.set()
            thread.join(timeout=15)
    assert [e.outcome for e in events] == ["failed"]
    assert any("event EvNoDb could not be answered" in r.getMessage() for r in caplog.records)


def _pending_approval(world: SlackWorld) -> str:
    action = ProposedAction.of("rollback", "payment", namespace="shop")
    with world.sessions() as s, s.begin():
        ledger = DbPredictionLedger(s)
        commit_prediction(ledger, action, {"entities": [], "alerts": [], "window_s": 600})
        row = request_approval(s, action, ledger, investigation_id=world.incident_id)
        assert isinstance(row, ApprovalRow)
        add_user(s, "sam", Role.APPROVER, slack_user_id="USAM")
        add_user(s, "vera", Role.VIEWER, slack_user_id="UVERA")
        return row.id


def _click(user: str, action: str, approval_id: str, response_url: str) -> dict[str, object]:
    return {"type": "block_actions", "user": {"id": user}, "response_url": response_url,
            "actions": [{"action_id": action, "value": approval_id}]}  # fmt: skip


def test_an_approve_click_over_socket_mode_decides_like_the_http_callback_and_tells_the_clicker(
    socket_world: SocketWorld,
) -> None:
    approval_id = _pending_approval(socket_world.world)
    told: list[Request] = []

    def response_url(request: Request) -> Reply:
        told.append(request)
        return Reply(200, "ok")

    with serve(response_url) as (url, _seen):
        viewer = socket_world.server.send_event(_click("UVERA", "approve", approval_id, url), kind="interactive")
        assert socket_world.outcome_of(viewer) == "refused"  # a viewer may not approve, over any transport
        approver = socket_world.server.send_event(_click("USAM", "approve", approval_id, url), kind="interactive")
        assert socket_world.server.ack_of(approver) < 3.0
        assert socket_world.outcome_of(approver) == "decided"
    with socket_world.world.sessions() as s:
        row = s.get(ApprovalRow, approval_id)
        assert row is not None and (row.status, row.decided_by, row.decided_via) == ("approved", "sam", "slack")
    texts = [json.loads(r.body)["text"] for r in told]
    assert texts[0].startswith("refused:") and texts[1] == "approved by <@USAM>"
    assert all(json.loads(r.body)["response_type"] == "ephemeral" for r in told)
