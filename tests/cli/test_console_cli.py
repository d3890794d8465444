from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from rootward.cli import app
from tests.conftest import EXAMPLES

runner = CliRunner()
BUNDLE = EXAMPLES / "shop-connection-pool-exhaustion-00"


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ROOTWARD_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ROOTWARD_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["import", str(BUNDLE)])
    assert result.exit_code == 0, result.output
    return result.output.split()[1]  # "[1/1] <id> <bundle>: ..."


def test_import_then_show_prints_the_cited_rca(recorded: str) -> None:
    shown = runner.invoke(app, ["show", recorded[:10]])
    assert shown.exit_code == 0, shown.output
    assert "connection pool exhaustion at payment" in shown.output and "[E" in shown.output


def test_ask_answers_from_the_evidence_with_citations(recorded: str) -> None:
    asked = runner.invoke(app, ["ask", recorded, "what config change happened?"])
    assert asked.exit_code == 0
    answer_lines = asked.output.split("\n  E")[0]
    assert "config-7596" in answer_lines and "[E" in answer_lines
    assert "change changes.json:config-7596" in asked.output


def test_unknown_investigation_is_a_clear_error(recorded: str) -> None:
    missing = runner.invoke(app, ["show", "nope-nope"])
    assert missing.exit_code == 1 and "no investigation" in missing.output
