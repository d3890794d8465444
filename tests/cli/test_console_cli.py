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


def test_ask_with_a_model_prints_its_checked_answer_and_charges_the_call(
    recorded: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from tests.fixtures.fake_llm import FakeLLMServer

    with FakeLLMServer() as server:
        for key, value in {"PROVIDER": "openai", "BASE_URL": server.base_url, "API_KEY": "t", "MODEL": "m"}.items():
            monkeypatch.setenv(f"ROOTWARD_LLM__{key}", value)
        shown = runner.invoke(app, ["show", recorded, "--json"])
        config = next(e for e, item in json.loads(shown.output)["evidence"].items() if item["kind"] == "change")
        server.script.append(json.dumps({"answer": f"payment's pool was lowered [{config}] [E0]", "cites": []}))
        asked = runner.invoke(app, ["ask", recorded, "what config change happened?"])
    assert asked.exit_code == 0, asked.output
    lines = asked.output.splitlines()
    assert lines[0] == f"payment's pool was lowered [{config}]"
    assert lines[1].startswith(f"  {config}: change changes.json:")
    assert lines[-1].startswith("(model-written from ") and "dropped: E0" in lines[-1]
    costs = runner.invoke(app, ["costs", "--json"])
    assert costs.exit_code == 0, costs.output
    assert [line["calls"] for line in json.loads(costs.output)] == [1]


def test_an_imported_investigation_is_judged_like_a_live_one(recorded: str, tmp_path: Path) -> None:
    from sqlalchemy import select

    from rootward.store.db import make_engine, make_session_factory
    from rootward.store.judge_scores import JudgeScoreRow

    sessions = make_session_factory(make_engine(f"sqlite:///{tmp_path / 'rootward.db'}"))
    with sessions() as session:
        rows = session.scalars(select(JudgeScoreRow).where(JudgeScoreRow.investigation_id == recorded)).all()
    assert [(r.judge, r.service) for r in rows] == [("rubric-1", "checkout")]  # its worst alert's service
    assert 0.0 < rows[0].overall <= 1.0
