"""Thread Q&A in a real Matrix room (Synapse): a reply in an RCA's thread is answered in that thread, once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from rootward.chat.matrix_threads import MatrixThreads
from rootward.domain.roles import Role
from rootward.engine.record import record_bundle
from rootward.notify.compose import compose_notification
from rootward.notify.matrix import MatrixChannel, MatrixSettings
from rootward.notify.outbox import OutboxDispatcher, enqueue
from rootward.sim.generate import generate
from rootward.store.db import make_engine, make_session_factory
from rootward.store.migrate import upgrade
from rootward.store.users import add_user
from tests.integration.synapse_server import Synapse, synapse_python

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("synapse")]


@pytest.fixture(scope="module")
def synapse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synapse]:
    python = synapse_python()
    if python is None:
        pytest.skip("Synapse not installed: run `make synapse` (CI does)")
    server = Synapse(python, tmp_path_factory.mktemp("synapse"))
    server.start()
    yield server
    server.stop()


def _api(server: Synapse, token: str, method: str, path: str, body: dict | None = None) -> dict:  # type: ignore[type-arg]
    response = httpx.request(
        method, server.url + "/_matrix/client/v3" + path, json=body, headers={"authorization": f"Bearer {token}"}
    )
    response.raise_for_status()
    return response.json()  # type: ignore[no-any-return]


def _in_thread(synapse: Synapse, token: str, room: str, root: str) -> list[dict]:  # type: ignore[type-arg]
    chunk = _api(synapse, token, "GET", f"/rooms/{room}/messages?dir=b&limit=50")["chunk"]
    return [
        e
        for e in chunk
        if e["type"] == "m.room.message" and e["content"].get("m.relates_to", {}).get("event_id") == root
    ]


def test_a_question_in_the_rca_thread_is_answered_in_the_thread_citing_the_deploy(
    synapse: Synapse, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 't.db'}"
    upgrade(url)
    sessions = make_session_factory(make_engine(url))
    bot, vic, guest = synapse.register("rwthreads"), synapse.register("vicq"), synapse.register("guestq")
    room = _api(synapse, bot["access_token"], "POST", "/createRoom", {"name": "inc", "preset": "public_chat"})[
        "room_id"
    ]
    for member in (vic, guest):
        _api(synapse, member["access_token"], "POST", f"/join/{room}", {})
    settings = MatrixSettings(
        homeserver=synapse.url,
        user_id=bot["user_id"],
        access_token=SecretStr(bot["access_token"]),
        room_id=room,
        device_id=bot["device_id"],
    )
    bundle = generate(tmp_path / "bundles", 1, 7, faults=["deploy_regression"])[0].path
    with sessions() as s, s.begin():
        row = record_bundle(s, bundle)
        deploy = next(e.cite for e in row.investigation.evidence.values() if e.kind == "change")
        note = compose_notification(
            row.investigation, title=row.title, service=row.service, tier="L1", severity="P2", investigation_id=row.id
        )
        enqueue(s, note, ["matrix"], key=f"investigation:{row.id}")
        add_user(s, "vic", Role.VIEWER, matrix_user_id=vic["user_id"])
    dispatcher = OutboxDispatcher(sessions, {"matrix": MatrixChannel(settings)})
    assert dispatcher.deliver_once() == 1
    root = next(e for e in _in_thread_or_root(synapse, vic["access_token"], room) if e["sender"] == bot["user_id"])
    threads = MatrixThreads(settings, sessions)
    assert threads.poll_once() == []  # the first sync only marks where the listener starts

    relation = {"rel_type": "m.thread", "event_id": root["event_id"], "is_falling_back": True,
                "m.in_reply_to": {"event_id": root["event_id"]}}  # fmt: skip
    for who, text in ((vic, "what changed before this?"), (guest, "rerun")):
        body = {"msgtype": "m.text", "body": text, "m.relates_to": relation}
        _api(synapse, who["access_token"], "PUT", f"/rooms/{room}/send/m.room.message/q-{who['user_id'][1:5]}", body)
    time.sleep(0.5)
    handled = threads.poll_once()
    assert [outcome for _message, outcome in handled] == ["answered", "answered"]
    assert dispatcher.deliver_once() == 2

    replies = [
        e for e in _in_thread(synapse, vic["access_token"], room, root["event_id"]) if e["sender"] == bot["user_id"]
    ]
    bodies = [e["content"]["body"] for e in reversed(replies)]
    assert len(bodies) == 2
    assert deploy.split(":", 1)[1] in bodies[0] and f"`{deploy}`" in bodies[0]
    assert bodies[1].startswith(f"refused: {guest['user_id']} is not a rootward user")
    assert all(e["content"]["msgtype"] == "m.notice" for e in replies)
    assert threads.poll_once() == []  # nothing new: nothing answered twice


def _in_thread_or_root(synapse: Synapse, token: str, room: str) -> list[dict]:  # type: ignore[type-arg]
    chunk = _api(synapse, token, "GET", f"/rooms/{room}/messages?dir=b&limit=50")["chunk"]
    return [e for e in chunk if e["type"] == "m.room.message" and "org.rootward.investigation_id" in e["content"]]
