from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from rootward.notify.matrix import MatrixChannel, MatrixSettings
from rootward.notify.message import Notification
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
        method,
        server.url + "/_matrix/client/v3" + path,
        json=body,
        headers={"authorization": f"Bearer {token}"},
        timeout=10,
    )
    response.raise_for_status()
    return response.json()  # type: ignore[no-any-return]


def test_notification_reaches_a_real_matrix_room_and_a_user_reads_it(synapse: Synapse) -> None:
    bot = synapse.register("rootward")
    oncall = synapse.register("oncall")
    room = _api(synapse, bot["access_token"], "POST", "/createRoom", {"name": "incidents"})["room_id"]
    _api(synapse, bot["access_token"], "POST", f"/rooms/{room}/invite", {"user_id": oncall["user_id"]})
    _api(synapse, oncall["access_token"], "POST", f"/join/{room}", {})

    channel = MatrixChannel(
        MatrixSettings(
            homeserver=synapse.url,
            user_id=bot["user_id"],
            access_token=SecretStr(bot["access_token"]),
            room_id=room,
            device_id=bot["device_id"],
        )
    )
    note = Notification(
        investigation_id="inv-42",
        title="HighLatencyP99 on checkout",
        tier="L2",
        summary="payment-db pool saturated after config-7596",
        summary_source="rule",
        evidence=("changes.json:config-7596",),
        executed_actions=("silence_alert BatchJobSlow 1h",),
    )
    first = channel.send(note, idempotency_key="outbox-1")
    again = channel.send(note, idempotency_key="outbox-1")  # replay after a crash: same txn id
    assert first.startswith("$") and again == first

    messages = _api(synapse, oncall["access_token"], "GET", f"/rooms/{room}/messages?dir=b&limit=20")
    bodies = [e["content"].get("body", "") for e in messages["chunk"] if e["type"] == "m.room.message"]
    assert len(bodies) == 1
    assert "payment-db pool saturated" in bodies[0] and "changes.json:config-7596" in bodies[0]
    assert "inv-42" in bodies[0]


def test_wrong_token_is_a_delivery_failure_not_a_crash(synapse: Synapse, tmp_path: Path) -> None:
    from rootward.notify.channels import DeliveryFailed

    channel = MatrixChannel(
        MatrixSettings(
            homeserver=synapse.url,
            user_id="@nobody:localhost",
            access_token=SecretStr("bogus"),
            room_id="!x:localhost",
        )
    )
    with pytest.raises(DeliveryFailed):
        channel.send(Notification("i", "t", "L1", "s", "rule"), idempotency_key="k")


def test_approver_reaction_and_non_approver_command_in_the_room(synapse: Synapse, tmp_path: Path) -> None:
    from rootward.actions.approvals import request_approval
    from rootward.actions.matrix_approvals import MatrixApprovals
    from rootward.domain.roles import Role
    from rootward.store.approvals import ApprovalRow
    from rootward.store.db import make_engine, make_session_factory
    from rootward.store.migrate import upgrade
    from rootward.store.users import add_user
    from rootward.worldmodel.prediction_gate import MemoryLedger, ProposedAction, commit_prediction

    url = f"sqlite:///{tmp_path / 'm.db'}"
    upgrade(url)
    sessions = make_session_factory(make_engine(url))
    bot = synapse.register("rwbot")
    anna = synapse.register("anna")
    vic = synapse.register("vic")
    room = _api(synapse, bot["access_token"], "POST", "/createRoom", {"name": "inc", "preset": "public_chat"})[
        "room_id"
    ]
    for member in (anna, vic):
        _api(synapse, member["access_token"], "POST", f"/join/{room}", {})
    action = ProposedAction.of("restart", "payment", namespace="shop")
    ledger = MemoryLedger()
    commit_prediction(ledger, action, {"entities": [], "alerts": [], "window_s": 300})
    with sessions() as s, s.begin():
        first = request_approval(s, action, ledger, investigation_id="inv-7")
        second = request_approval(s, ProposedAction.of("scale", "payment", replicas=4), ledger, investigation_id="x")
        assert isinstance(first, ApprovalRow) and not isinstance(second, ApprovalRow)
        approval_id = first.id
        add_user(s, "anna", Role.APPROVER, matrix_user_id=anna["user_id"])
        add_user(s, "vic", Role.VIEWER, matrix_user_id=vic["user_id"])

    settings = MatrixSettings(
        homeserver=synapse.url,
        user_id=bot["user_id"],
        access_token=SecretStr(bot["access_token"]),
        room_id=room,
        device_id=bot["device_id"],
    )
    note = Notification(
        "inv-7", "restart payment?", "L3", "approve the restart", "rule", extra={"approval_id": approval_id}
    )
    message_id = MatrixChannel(settings).send(note, idempotency_key="appr-msg")
    listener = MatrixApprovals(settings, sessions)
    assert listener.poll_once() == []  # first sync only marks where to start

    _api(
        synapse,
        vic["access_token"],
        "PUT",
        f"/rooms/{room}/send/m.room.message/t1",
        {"msgtype": "m.text", "body": f"!approve {approval_id}"},
    )
    _api(
        synapse,
        anna["access_token"],
        "PUT",
        f"/rooms/{room}/send/m.reaction/t2",
        {"m.relates_to": {"rel_type": "m.annotation", "event_id": message_id, "key": "✅"}},
    )
    results = listener.poll_once()
    assert [(v.sender, o.ok) for v, o in results] == [(vic["user_id"], False), (anna["user_id"], True)]
    with sessions() as s:
        row = s.get(ApprovalRow, approval_id)
        assert row is not None and row.status == "approved" and row.decided_via == "matrix"
        assert row.decided_by == "anna"
