"""The CSRF attack of issue 14 against the console, and the legitimate flow beside it (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rootward.actions.approvals import request_approval
from rootward.domain.roles import Role
from rootward.settings import load_settings
from rootward.store.approvals import ApprovalRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import add_user, create_token
from rootward.store.worldmodel import DbPredictionLedger
from rootward.web.app import create_app
from rootward.worldmodel.prediction_gate import ProposedAction, commit_prediction
from tests.web.signin import sign_in

OWN = "http://testserver"


class Console:
    def __init__(self, client: TestClient, url: str, approval_id: str, token: str) -> None:
        self.client, self.url, self.approval_id, self.token = client, url, approval_id, token

    def status(self) -> str:
        engine = make_engine(self.url)
        try:
            with make_session_factory(engine)() as s:
                row = s.get(ApprovalRow, self.approval_id)
                assert row is not None
                return row.status
        finally:
            engine.dispose()

    def approve(self, data: dict[str, str], headers: dict[str, str] | None = None) -> tuple[int, str]:
        response = self.client.post(
            f"/approvals/{self.approval_id}/approve", data=data, headers=headers or {}, follow_redirects=False
        )
        return response.status_code, response.text


@pytest.fixture
def console(migrated_db_url: str, tmp_path: Path) -> Iterator[Console]:
    sessions = make_session_factory(make_engine(migrated_db_url))
    action = ProposedAction.of("rollback", "payment", namespace="shop")
    with sessions() as s, s.begin():
        ledger = DbPredictionLedger(s)
        commit_prediction(ledger, action, {"entities": [], "alerts": [], "window_s": 600})
        row = request_approval(s, action, ledger, investigation_id="inv-1")
        assert isinstance(row, ApprovalRow)
        add_user(s, "anna", Role.APPROVER)
        token = create_token(s, "anna")
        approval_id = row.id
    settings = load_settings(
        data_dir=tmp_path, database={"url": migrated_db_url}, intake={"auth": "none"}, runtime={"workers": 0}
    )
    with TestClient(create_app(settings)) as client:
        yield Console(client, migrated_db_url, approval_id, token)


def test_a_signed_in_form_post_without_the_csrf_token_is_refused(console: Console) -> None:
    sign_in(console.client, console.token)
    code, text = console.approve({})
    assert code == 403 and "CSRF token" in text
    code, text = console.approve({"csrf_token": "guessed"})
    assert code == 403 and "CSRF token" in text
    assert console.status() == "pending"


def test_a_post_from_another_port_of_the_same_host_is_refused_even_with_the_token(console: Console) -> None:
    csrf = sign_in(console.client, console.token)
    code, text = console.approve({"csrf_token": csrf}, {"origin": "http://testserver:8081"})
    assert code == 403 and "Origin http://testserver:8081 is not this server" in text
    code, text = console.approve({"csrf_token": csrf}, {"sec-fetch-site": "same-site"})
    assert code == 403 and "Sec-Fetch-Site: same-site" in text
    code, _ = console.approve({"csrf_token": csrf}, {"origin": "null"})
    assert code == 403
    assert console.status() == "pending"


def test_the_api_ignores_the_session_cookie(console: Console) -> None:
    """The `fetch(..., {credentials: "include", mode: "no-cors"})` variant: cookie, no Authorization header."""
    sign_in(console.client, console.token)
    response = console.client.post(f"/api/v1/approvals/{console.approval_id}/approve")
    assert response.status_code == 401 and "missing bearer token" in response.json()["detail"]
    assert console.status() == "pending"


def test_the_console_flow_with_its_token_and_own_origin_approves(console: Console) -> None:
    csrf = sign_in(console.client, console.token)
    page = console.client.get("/approvals").text
    assert f'name="csrf_token" value="{csrf}"' in page  # the sign-out form carries it like every form
    code, _ = console.approve({"csrf_token": csrf}, {"origin": OWN, "sec-fetch-site": "same-origin"})
    assert code == 303
    assert console.status() == "approved"


def test_a_script_with_the_bearer_header_needs_no_csrf_token(console: Console) -> None:
    console.client.cookies.clear()
    code, _ = console.approve({}, {"authorization": f"Bearer {console.token}"})
    assert code == 303 and console.status() == "approved"


def test_signing_in_from_another_site_is_refused(console: Console) -> None:
    response = console.client.post(
        "/login", data={"token": console.token}, headers={"origin": "https://evil.example"}, follow_redirects=False
    )
    assert response.status_code == 403 and "rootward_session" not in response.headers.get("set-cookie", "")
