"""`rootward incidents`: the life cycle from the command line, the same rules as the console."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from rootward.cli import app
from tests.conftest import EXAMPLES


def test_ack_assign_resolve_and_the_timeline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROOTWARD_DATA_DIR", str(tmp_path))
    runner = CliRunner()

    def run(*args: str, code: int = 0) -> str:
        result = runner.invoke(app, list(args))
        assert result.exit_code == code, result.output
        return result.output

    run("users", "add", "rita", "--role", "responder")
    run("users", "add", "vic", "--role", "viewer")
    investigation_id = run("import", str(EXAMPLES / "shop-connection-pool-exhaustion-00"), "--ids").strip()
    assert "responder role" in run("incidents", "ack", investigation_id, "--as", "vic", code=1)
    assert "acknowledged, assigned to rita" in run("incidents", "ack", investigation_id[:10], "--as", "rita")
    assert "assigned to sam" in run("incidents", "assign", investigation_id, "sam", "--as", "rita")
    resolved = run(
        "incidents", "resolve", investigation_id, "--as", "rita", "--root-cause", "payment/connection_pool_exhaustion"
    )
    assert "resolved" in resolved and "runbook draft proposed" in resolved
    assert "imported incident does not teach this system's world model" in resolved
    assert "already resolved" in run("incidents", "resolve", investigation_id, "--as", "rita", code=1)
    listed = run("incidents", "list", "--state", "resolved")
    assert investigation_id in listed and "imported" in listed
    assert run("incidents", "list", "--state", "open").strip() == ""
    timeline = run("incidents", "timeline", investigation_id)
    kinds = [line.split()[2] for line in timeline.splitlines()]
    assert kinds[0] == "investigation" and kinds[-3:] == ["acknowledged", "assigned", "resolved"]
    assert "approval requested" in timeline  # the import asked for approval of its proposal
