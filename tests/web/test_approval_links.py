"""Teams' Approve/Reject links: signed, expiring, single-use, decided by a signed-in approver, recorded as `teams`."""

from __future__ import annotations

import json
import time
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import select

from rootward.notify.approval_links import LINK_PATH, mint
from rootward.settings import load_settings
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import AuditRow
from rootward.store.db import make_engine, make_session_factory
from rootward.web.app import create_app
from tests.web.signin import sign_in
from tests.web.test_approvals import _setup  # a pending request, viewer vic and approver anna

SECRET = "teams-link-secret"


def _client(url: str, tmp_path: Path) -> TestClient:
    settings = load_settings(
        data_dir=tmp_path,
        database={"url": url},
        intake={"auth": "none"},
        runtime={"workers": 0},
        notify={"teams": {"webhook_url": "http://127.0.0.1:9/hook", "link_secret": SECRET}},
    )
    return TestClient(create_app(settings))


def _token(approval_id: str, decision: str = "approve", *, ttl_s: int = 600, now: float | None = None) -> str:
    return mint(SECRET, approval_id, decision, channel="teams", now=now or time.time(), ttl_s=ttl_s)  # type: ignore[arg-type]


def _api(client: TestClient, token: str, bearer: str) -> tuple[int, dict[str, str]]:
    response = client.post(f"/api{'/v1'}{LINK_PATH}{token}", headers={"authorization": f"Bearer {bearer}"})
    return response.status_code, response.json()


def _decision(url: str, approval_id: str) -> tuple[str, str | None, str | None]:
    with make_session_factory(make_engine(url))() as s:
        row = s.get(ApprovalRow, approval_id)
        assert row is not None
        return row.status, row.decided_by, row.decided_via


def test_api_link_decides_once_as_teams_and_refuses_a_reuse(migrated_db_url: str, tmp_path: Path) -> None:
    approval_id, tokens = _setup(migrated_db_url)
    token = _token(approval_id)
    with _client(migrated_db_url, tmp_path) as client:
        assert _api(client, token, tokens["anna"]) == (200, {"id": approval_id, "status": "approved", "via": "teams"})
        status, body = _api(client, token, tokens["anna"])
    assert status == 403 and body["detail"] == "this approval link was already used: each link decides once"
    assert _decision(migrated_db_url, approval_id) == ("approved", "anna", "teams")


def test_a_viewer_is_refused_and_the_link_still_works_for_an_approver(migrated_db_url: str, tmp_path: Path) -> None:
    approval_id, tokens = _setup(migrated_db_url)
    token = _token(approval_id, "reject")
    with _client(migrated_db_url, tmp_path) as client:
        status, body = _api(client, token, tokens["vic"])
        assert status == 403 and "approving needs the approver role" in body["detail"]
        assert _decision(migrated_db_url, approval_id)[0] == "pending"
        assert _api(client, token, tokens["anna"])[1]["status"] == "rejected"
    with make_session_factory(make_engine(migrated_db_url))() as s:
        refused = s.scalars(select(AuditRow).where(AuditRow.kind == "approval.refused")).all()
    assert [json.loads(r.data)["via"] for r in refused] == ["teams"]


def test_tampered_expired_and_foreign_links_are_403_with_the_reason(migrated_db_url: str, tmp_path: Path) -> None:
    approval_id, tokens = _setup(migrated_db_url)
    good = _token(approval_id)
    claims, _, signature = good.partition(".")
    other_claims = _token("another-approval").partition(".")[0]
    foreign = mint("another-secret", approval_id, "approve", channel="teams", now=time.time(), ttl_s=600)
    cases = {
        f"{other_claims}.{signature}": "invalid signature: the approval link was altered",
        f"{claims}.{signature[:-2]}xx": "invalid signature",
        _token(approval_id, now=time.time() - 700): "the approval link expired",
        foreign: "invalid signature",
        "not-a-link": "malformed approval link",
    }
    with _client(migrated_db_url, tmp_path) as client:
        for token, reason in cases.items():
            status, body = _api(client, token, tokens["anna"])
            assert status == 403 and body["detail"].startswith(reason), (token, body)
        assert client.post(f"/api/v1{LINK_PATH}{good}").status_code == 401  # no token: not even a try
    assert _decision(migrated_db_url, approval_id)[0] == "pending"


def test_console_page_confirms_then_records_the_decision(migrated_db_url: str, tmp_path: Path) -> None:
    approval_id, tokens = _setup(migrated_db_url)
    token = _token(approval_id)
    with _client(migrated_db_url, tmp_path) as client:
        assert client.get(f"{LINK_PATH}{token}", follow_redirects=False).headers["location"] == "/login"
        csrf = sign_in(client, tokens["anna"])
        page = client.get(f"{LINK_PATH}{token}")
        assert page.status_code == 200 and "Confirm as anna (approver)" in page.text
        assert _decision(migrated_db_url, approval_id)[0] == "pending"  # opening a link decides nothing
        done = client.post(f"{LINK_PATH}{token}", data={"csrf_token": csrf}, follow_redirects=False)
        assert done.status_code == 303 and done.headers["location"] == f"/incidents/inv-1#approval-{approval_id}"
        again = client.post(f"{LINK_PATH}{token}", data={"csrf_token": csrf}, follow_redirects=False)
        assert again.status_code == 403 and "already used" in again.text
        tampered = client.get(f"{LINK_PATH}{token[:-3]}abc")
        assert tampered.status_code == 403 and "invalid signature" in tampered.text
    assert _decision(migrated_db_url, approval_id) == ("approved", "anna", "teams")


def test_console_confirmation_of_a_viewer_is_refused(migrated_db_url: str, tmp_path: Path) -> None:
    approval_id, tokens = _setup(migrated_db_url)
    token = _token(approval_id)
    with _client(migrated_db_url, tmp_path) as client:
        csrf = sign_in(client, tokens["vic"])
        refused = client.post(f"{LINK_PATH}{token}", data={"csrf_token": csrf}, follow_redirects=False)
    assert refused.status_code == 403 and "approving needs the approver role" in refused.text
    assert _decision(migrated_db_url, approval_id)[0] == "pending"
