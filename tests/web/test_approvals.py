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
from rootward.worldmodel.gate import ProposedAction, commit_prediction

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
        assert viewer.status_code == 409 and "approver role" in viewer.json()["detail"]
        ok = client.post(
            f"/api/v1/approvals/{approval_id}/approve", headers={"authorization": f"Bearer {tokens['anna']}"}
        )
        assert ok.status_code == 200 and ok.json()["status"] == "approved"
        listed = client.get("/api/v1/approvals", headers={"authorization": f"Bearer {tokens['vic']}"}).json()
        assert listed[0]["decided_by"] == "anna"


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
        # One row for the first refusal from this client, one summary counting the other three.
        refused = [json.loads(r.data) for r in rows if r.kind == "slack.refused"]
        assert [d.get("count", 1) for d in refused] == [1, 3]
        assert "approval.refused" in kinds and "approval.approved" in kinds
        row = s.get(ApprovalRow, approval_id)
        assert row is not None and row.decided_via == "slack"
