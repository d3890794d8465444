"""`tokens list|revoke` and `users disable|enable|remove`, checked against what the API then answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from rootward.cli import app
from rootward.settings import load_settings
from rootward.web.app import create_app

runner = CliRunner()


@pytest.fixture
def database(migrated_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ROOTWARD_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ROOTWARD_DATABASE_URL", migrated_db_url)
    monkeypatch.delenv("ROOTWARD_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    return migrated_db_url


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def _api_status(url: str, tmp_path: Path, token: str) -> int:
    settings = load_settings(data_dir=tmp_path, database={"url": url}, intake={"auth": "none"}, runtime={"workers": 0})
    with TestClient(create_app(settings)) as client:
        return client.get("/api/v1/approvals", headers={"authorization": f"Bearer {token}"}).status_code


def test_a_revoked_token_is_listed_as_revoked_and_refused(database: str, tmp_path: Path) -> None:
    assert _cli("users", "add", "anna", "--role", "approver")[0] == 0
    laptop = _cli("tokens", "create", "anna", "--label", "laptop")[1].strip()
    ci = _cli("tokens", "create", "anna", "--label", "ci")[1].strip()
    code, listing = _cli("tokens", "list")
    assert code == 0 and listing.count("active") == 2 and laptop not in listing
    laptop_id = next(line.split()[0] for line in listing.splitlines() if line.endswith("laptop"))
    code, out = _cli("tokens", "revoke", laptop_id)
    assert code == 0 and out.strip() == f"revoked {laptop_id} of anna"
    [laptop_line] = [line for line in _cli("tokens", "list", "--user", "anna")[1].splitlines() if "laptop" in line]
    assert "revoked" in laptop_line
    assert _api_status(database, tmp_path, laptop) == 401
    assert _api_status(database, tmp_path, ci) == 200
    code, out = _cli("tokens", "revoke", "0123")
    assert code == 2 and "not a token id" in out


def test_a_disabled_user_is_refused_until_enabled_and_a_removed_one_is_gone(database: str, tmp_path: Path) -> None:
    _cli("users", "add", "vic")
    token = _cli("tokens", "create", "vic")[1].strip()
    code, out = _cli("users", "disable", "vic")
    assert code == 0 and out.strip() == "disabled vic"
    assert "disabled" in _cli("users", "list")[1]
    assert _api_status(database, tmp_path, token) == 401
    assert _cli("users", "enable", "vic")[0] == 0
    assert _api_status(database, tmp_path, token) == 200
    code, out = _cli("users", "remove", "vic")
    assert code == 0 and out.strip() == "removed vic"
    assert _cli("users", "list")[1].strip() == "" and _cli("tokens", "list")[1].strip() == ""
    assert _api_status(database, tmp_path, token) == 401
    code, out = _cli("users", "disable", "nobody")
    assert code == 2 and "no user 'nobody'" in out
