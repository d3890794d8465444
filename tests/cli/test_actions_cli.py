from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from rootward.cli import app

runner = CliRunner()


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ROOTWARD_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ROOTWARD_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_users_tokens_and_a_refused_cli_approval(data_dir: Path) -> None:
    assert runner.invoke(app, ["users", "add", "vic", "--role", "viewer"]).exit_code == 0
    duplicate = runner.invoke(app, ["users", "add", "vic"])
    assert duplicate.exit_code == 2 and "already exists" in duplicate.output
    token = runner.invoke(app, ["tokens", "create", "vic"])
    assert token.exit_code == 0 and token.output.startswith("rw_")
    refused = runner.invoke(app, ["approvals", "approve", "nope", "--as", "vic"])
    assert refused.exit_code == 1 and "no such approval request" in refused.output


def test_executor_once_with_nothing_configured_runs_nothing(data_dir: Path) -> None:
    result = runner.invoke(app, ["executor", "--once"])
    assert result.exit_code == 0
    assert "verbs allowed none" in result.output
