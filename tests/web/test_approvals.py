from __future__ import annotations

import hashlib
import hmac
import json
import time
from pathlib import Path
from urllib.parse import urlencode

from fastapi.testclient import TestClient
from sqlalchemy import select

from rootward.actions.approvals import request_approval
from rootward.domain.roles import Role
from rootward.settings import load_settings
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import AuditRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import add_user, create_token
from rootward.store.worldmodel import DbPredictionLedger
from rootward.web.app import create_app
from rootward.worldmodel.prediction_gate import ProposedAction, commit_prediction

SECRET = "slack-signing-secret"


def _setup(url: str) -> tuple[str, dict[str, str]]:
    sessions = make_session_factory(make_engine(url))
    action = ProposedAction.of("rollback", "payment", namespace="shop")
    tokens = {}
    with sessions() as s, s.begin():
        ledger = DbPredictionLedger(s)
        commit_prediction(ledger, action, {"entities": [], "alerts": [], "window_s": 600})
        row = request_approval(s, action, ledger, investigation_id="inv-1")
        assert isinstance(row, ApprovalRow)
        for name, role, slack in (("vic", Role.VIEWER, "UVIEW"), ("anna", Role.APPROVER, "UANNA")):
            add_user(s, name, role, slack_user_id=slack)
            tokens[name] = create_token(s, name)
        return row.id, tokens


def _client(url: str, tmp_path: Path) -> TestClient:
    settings = load_settings(
        data_dir=tmp_path,
        database={"url": url},
        intake={"auth": "none"},
        runtime={"workers": 0},
        notify={"slack": {"bot_token": "xoxb-x", "channel": "C1", "signing_secret": SECRET}},
    )
    return TestClient(create_app(settings))


def _slack(
    client: TestClient, approval_id: str, user: str, *, ts: int | None = None, secret: str = SECRET, signed: bool = True
) -> tuple[int, dict[str, object]]:
    payload = {
        "type": "block_actions",
        "user": {"id": user},
        "actions": [{"action_id": "approve", "value": approval_id}],
    }
    body = urlencode({"payload": json.dumps(payload)}).encode()
    stamp = str(ts or int(time.time()))
    sig = "v0=" + hmac.new(secret.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
    headers = {"content-type": "application/x-www-form-urlencoded"}
    if signed:
        headers |= {"x-slack-request-timestamp": stamp, "x-slack-signature": sig}
    response = client.post("/api/v1/slack/interactions", content=body, headers=headers)
    return response.status_code, response.json()


def test_api_approval_needs_the_approver_role(migrated_db_url: str, tmp_path: Path) -> None:
    approval_id, tokens = _setup(migrated_db_url)
    with _client(migrated_db_url, tmp_path) as client:
        assert client.post(f"/api/v1/approvals/{approval_id}/approve").status_code == 401
        viewer = client.post(
            f"/api/v1/approvals/{approval_id}/approve", headers={"authorization": f"Bearer {tokens['vic']}"}
        )
        assert viewer.status_code == 403 and "approver role" in viewer.json()["detail"]
        ok = client.post(
            f"/api/v1/approvals/{approval_id}/approve", headers={"authorization": f"Bearer {tokens['anna']}"}
        )
        assert ok.status_code == 200 and ok.json()["status"] == "approved"
        listed = client.get("/api/v1/approvals", headers={"authorization": f"Bearer {tokens['vic']}"}).json()
        assert listed[0]["decided_by"] == "anna" and listed[0]["decided_via"] == "api"
        assert (
            listed[0]["text"] == "rollback payment (namespace shop)"
            and listed[0]["status_text"] == "approved by anna through the API"
        )


def test_slack_unsigned_stale_replayed_and_non_approver_are_refused(migrated_db_url: str, tmp_path: Path) -> None:
    approval_id, _ = _setup(migrated_db_url)
    with _client(migrated_db_url, tmp_path) as client:
        assert _slack(client, approval_id, "UANNA", signed=False)[0] == 401
        assert _slack(client, approval_id, "UANNA", secret="forged")[0] == 401
        assert _slack(client, approval_id, "UANNA", ts=int(time.time()) - 600)[0] == 401
        code, body = _slack(client, approval_id, "UVIEW")
        assert code == 200 and str(body["text"]).startswith("refused")
        stamp = int(time.time())
        code, body = _slack(client, approval_id, "UANNA", ts=stamp)
        assert code == 200 and "approved" in str(body["text"])
        assert _slack(client, approval_id, "UANNA", ts=stamp)[0] == 401  # the very same request again
    sessions = make_session_factory(make_engine(migrated_db_url))
    with sessions() as s:
        rows = list(s.scalars(select(AuditRow).order_by(AuditRow.id)))
        kinds = [r.kind for r in rows]
        # Four different kinds of refusal: each gets its own row at once.
        refused = [json.loads(r.data)["reason"] for r in rows if r.kind == "slack.refused"]
        assert len(refused) == 4 and refused[-1] == "replayed request"
        assert "approval.refused" in kinds and "approval.approved" in kinds
        row = s.get(ApprovalRow, approval_id)
        assert row is not None and row.decided_via == "slack"


def _audit(url: str, kind: str) -> list[dict[str, object]]:
    engine = make_engine(url)
    try:
        with make_session_factory(engine)() as s:
            return [
                json.loads(r.data)
                for r in s.scalars(select(AuditRow).where(AuditRow.kind == kind).order_by(AuditRow.id))
            ]
    finally:
        engine.dispose()


def test_a_flood_of_forged_slack_requests_adds_two_audit_rows_not_one_each(
    migrated_db_url: str, tmp_path: Path
) -> None:
    approval_id, _ = _setup(migrated_db_url)
    with _client(migrated_db_url, tmp_path) as client:
        codes = {_slack(client, approval_id, "UANNA", secret="forged")[0] for _ in range(300)}
        assert codes == {401}
        assert len(_audit(migrated_db_url, "slack.refused")) == 1  # the first one, at once
    rows = _audit(migrated_db_url, "slack.refused")  # at shutdown: the summary of the rest
    assert len(rows) == 2
    assert rows[0]["reason"] == "bad signature" and rows[1]["count"] == 299
    assert rows[1]["reasons"] == {"bad signature": 299} and rows[0]["source"] == rows[1]["source"]


def test_a_signed_in_user_spraying_random_approval_ids_is_audited_once_plus_a_count(
    migrated_db_url: str, tmp_path: Path
) -> None:
    _, tokens = _setup(migrated_db_url)
    bearer = {"authorization": f"Bearer {tokens['anna']}"}
    with _client(migrated_db_url, tmp_path) as client:
        for n in range(50):
            response = client.post(f"/api/v1/approvals/random-{n}/approve", headers=bearer)
            assert response.status_code == 404 and response.json()["detail"] == "no such approval request"
    rows = _audit(migrated_db_url, "approval.refused")
    assert len(rows) == 2 and rows[1]["count"] == 49 and rows[1]["source"] == "api:anna"


def test_a_slack_replay_is_refused_after_a_restart(migrated_db_url: str, tmp_path: Path) -> None:
    approval_id, _ = _setup(migrated_db_url)
    payload = {"type": "block_actions", "user": {"id": "UANNA"}, "actions": [{"action_id": "reject", "value": "x"}]}
    body = urlencode({"payload": json.dumps(payload)}).encode()
    stamp = str(int(time.time()))
    sig = "v0=" + hmac.new(SECRET.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
    headers = {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": stamp,
        "x-slack-signature": sig,
    }
    with _client(migrated_db_url, tmp_path) as client:
        assert client.post("/api/v1/slack/interactions", content=body, headers=headers).status_code == 200
    with _client(migrated_db_url, tmp_path) as restarted:  # a new process, or another replica
        replay = restarted.post("/api/v1/slack/interactions", content=body, headers=headers)
    assert replay.status_code == 401 and replay.json()["detail"] == "replayed request"
    assert approval_id


def test_a_slack_rejection_says_rejected_by(migrated_db_url: str, tmp_path: Path) -> None:
    approval_id, _ = _setup(migrated_db_url)
    payload = {
        "type": "block_actions",
        "user": {"id": "UANNA"},
        "actions": [{"action_id": "reject", "value": approval_id}],
    }
    body = urlencode({"payload": json.dumps(payload)}).encode()
    stamp = str(int(time.time()))
    sig = "v0=" + hmac.new(SECRET.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
    headers = {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": stamp,
        "x-slack-signature": sig,
    }
    with _client(migrated_db_url, tmp_path) as client:
        reply = client.post("/api/v1/slack/interactions", content=body, headers=headers).json()
    assert reply["text"] == "rejected by <@UANNA>"
