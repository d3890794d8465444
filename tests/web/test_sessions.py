"""Server-side console sessions and the token/user life cycle, as the console and the API see them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.roles import Role
from rootward.settings import load_settings
from rootward.store.console_sessions import ConsoleSessionRow, session_for, start_session
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import add_user, create_token, disable_user, list_tokens, remove_user, revoke_token
from rootward.web.app import create_app
from rootward.web.auth import SESSION_COOKIE
from tests.web.signin import sign_in


@pytest.fixture
def sessions(migrated_db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(migrated_db_url)
    yield make_session_factory(engine)
    engine.dispose()


def _app(url: str, tmp_path: Path, **server: object) -> TestClient:
    settings = load_settings(
        data_dir=tmp_path, database={"url": url}, intake={"auth": "none"}, runtime={"workers": 0}, server=server
    )
    return TestClient(create_app(settings))


def _user(sessions: sessionmaker[Session], name: str = "anna") -> str:
    with sessions() as s, s.begin():
        add_user(s, name, Role.APPROVER)
        return create_token(s, name, "laptop")


def test_the_cookie_is_a_random_session_id_not_the_token(
    sessions: sessionmaker[Session], migrated_db_url: str, tmp_path: Path
) -> None:
    token = _user(sessions)
    with _app(migrated_db_url, tmp_path) as client:
        sign_in(client, token)
        cookie = client.cookies[SESSION_COOKIE]
    assert cookie and token not in cookie
    with sessions() as s:
        [row] = s.scalars(select(ConsoleSessionRow)).all()
    assert cookie not in (row.id_hash, row.csrf_token) and row.expires_at is not None


def test_signing_out_ends_the_session_for_every_copy_of_the_cookie(
    sessions: sessionmaker[Session], migrated_db_url: str, tmp_path: Path
) -> None:
    token = _user(sessions)
    with _app(migrated_db_url, tmp_path) as client:
        csrf = sign_in(client, token)
        copied = client.cookies[SESSION_COOKIE]
        out = client.post("/logout", data={"csrf_token": csrf}, follow_redirects=False)
        assert out.status_code == 303 and out.headers["location"] == "/login"
        client.cookies.set(SESSION_COOKIE, copied)  # the attacker's copy
        again = client.get("/incidents", follow_redirects=False)
        assert again.status_code == 303 and again.headers["location"] == "/login"
    with sessions() as s:
        assert s.scalars(select(ConsoleSessionRow)).all() == []


def test_a_revoked_token_is_refused_at_once_by_the_api_and_its_console_session(
    sessions: sessionmaker[Session], migrated_db_url: str, tmp_path: Path
) -> None:
    token = _user(sessions)
    bearer = {"authorization": f"Bearer {token}"}
    with _app(migrated_db_url, tmp_path) as client:
        sign_in(client, token)
        assert client.get("/api/v1/approvals", headers=bearer).status_code == 200
        with sessions() as s, s.begin():
            [listed] = list_tokens(s, "anna")
            revoke_token(s, listed.id)
        refused = client.get("/api/v1/approvals", headers=bearer)
        assert refused.status_code == 401 and "revoked" in refused.json()["detail"]
        assert client.get("/incidents", follow_redirects=False).headers["location"] == "/login"
        login = client.post("/login", data={"token": token}, follow_redirects=False)
        assert login.status_code == 200 and "Unknown token." in login.text


def test_a_disabled_user_is_refused_at_once_and_a_removed_one_is_gone(
    sessions: sessionmaker[Session], migrated_db_url: str, tmp_path: Path
) -> None:
    token = _user(sessions)
    other = _user(sessions, "bob")
    with _app(migrated_db_url, tmp_path) as client:
        sign_in(client, other)
        sign_in(client, token)
        with sessions() as s, s.begin():
            disable_user(s, "anna")
            remove_user(s, "bob")
        assert client.get("/incidents", follow_redirects=False).headers["location"] == "/login"
        assert client.get("/api/v1/approvals", headers={"authorization": f"Bearer {token}"}).status_code == 401
        assert client.get("/api/v1/approvals", headers={"authorization": f"Bearer {other}"}).status_code == 401
    with sessions() as s:
        assert [t.user for t in list_tokens(s)] == ["anna"]  # bob's tokens went with him
        # bob's session went with him; anna's stays, refused while she is disabled.
        assert len(s.scalars(select(ConsoleSessionRow)).all()) == 1


def test_a_session_ends_at_its_expiry(sessions: sessionmaker[Session]) -> None:
    token = _user(sessions)
    t0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    with sessions() as s, s.begin():
        new = start_session(s, token, timedelta(hours=12), now=t0)
        assert new is not None
    with sessions() as s:
        assert session_for(s, new.session_id, now=t0 + timedelta(hours=11)) is not None
        assert session_for(s, new.session_id, now=t0 + timedelta(hours=12)) is None


@pytest.mark.parametrize(
    ("mode", "base_url", "secure"),
    [("auto", "http://testserver", False), ("auto", "https://testserver", True), ("always", "http://testserver", True)],
)
def test_the_session_cookie_is_secure_when_served_over_tls_or_configured(
    sqlite_migrated_url: str, tmp_path: Path, mode: str, base_url: str, secure: bool
) -> None:
    engine = make_engine(sqlite_migrated_url)
    try:
        token = _user(make_session_factory(engine))
    finally:
        engine.dispose()
    with _app(sqlite_migrated_url, tmp_path, secure_cookies=mode) as client:
        client.base_url = base_url  # type: ignore[assignment]
        response = client.post("/login", data={"token": token}, follow_redirects=False)
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert ("Secure" in cookie) is secure
