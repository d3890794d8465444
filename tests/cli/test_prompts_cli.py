"""`rootward prompts ...` and `rootward judge` against a migrated SQLite database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rootward.cli import app
from rootward.engine.entry_point import investigate_bundle
from rootward.llm.trials import route
from rootward.store.db import make_engine, make_session_factory
from rootward.store.judge_scores import ScoreInput, record_scores
from rootward.store.migrate import upgrade
from tests.conftest import EXAMPLES

DIMS = ("evidence_grounding", "root_cause_specificity", "actionability", "calibration", "clarity")


@pytest.fixture
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ROOTWARD_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ROOTWARD_DATABASE__URL", raising=False)
    db = f"sqlite:///{tmp_path / 'rootward.db'}"
    upgrade(db)
    return db


def _run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_trial_from_start_to_promotion_and_back(url: str) -> None:
    assert "started t1: control, terse" in _run("prompts", "start", "t1", "write_system", "--variant", "terse")
    assert "wait:" in _run("prompts", "evaluate", "t1")
    engine = make_engine(url)
    with make_session_factory(engine)() as s:
        for i in range(80):
            arm = route("t1", f"i{i}", ["control", "terse"])
            value = (0.8 if arm == "terse" else 0.6) + (i % 3 - 1) * 0.02
            record_scores(s, ScoreInput(f"i{i}", "svc", arm, "rubric-1", dict.fromkeys(DIMS, value), "t1", arm))
        s.commit()
    engine.dispose()
    assert _run("prompts", "evaluate", "t1").startswith("promote: terse beat control by 0.1")
    listed = json.loads(_run("prompts", "trials", "--json"))
    assert listed[0]["status"] == "promoted" and listed[0]["promoted"] == "terse"
    assert "control in use" in _run("prompts", "revert", "t1")
    failed = CliRunner().invoke(app, ["prompts", "revert", "t1"])
    assert failed.exit_code == 1 and "only a promotion can be reverted" in failed.output


def test_judge_scores_a_result_and_stores_them(url: str, tmp_path: Path) -> None:
    result = tmp_path / "result.json"
    result.write_text(investigate_bundle(EXAMPLES / "shop-deploy-regression-01").model_dump_json())
    scores = json.loads(_run("judge", str(result), "--store", "inv-1", "--service", "catalog"))
    assert set(scores) == {*DIMS, "judge", "overall"}
    engine = make_engine(url)
    with make_session_factory(engine)() as s:
        from rootward.store.judge_scores import score_trends

        assert [(t.key, t.judged, t.overall) for t in score_trends(s, "service")] == [("catalog", 1, scores["overall"])]
    engine.dispose()
