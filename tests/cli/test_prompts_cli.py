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
    return result.stdout


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


def test_evaluate_without_a_trial_decides_every_running_one(url: str) -> None:
    assert _run("prompts", "evaluate") == "no running prompt trials\n"
    _run("prompts", "start", "t1", "write_system", "--variant", "terse")
    engine = make_engine(url)
    with make_session_factory(engine)() as s:
        for i in range(60):
            arm = route("t1", f"i{i}", ["control", "terse"])
            dims = dict.fromkeys(DIMS, 0.6 + (i % 3 - 1) * 0.02)
            record_scores(s, ScoreInput(f"i{i}", "svc", arm, "rubric-1", dims, "t1", arm))
        s.commit()
    engine.dispose()
    assert _run("prompts", "evaluate").startswith("t1: abort: no variant beat control by 0.05")


def test_judge_without_a_result_reports_trends_and_agreement_with_people(url: str) -> None:
    from rootward.store.investigations import add_feedback

    assert "agreement with human feedback: no rated RCAs" in _run("judge")
    engine = make_engine(url)
    with make_session_factory(engine)() as s:
        for inv, value, verdict in (("i1", 0.8, "accepted"), ("i2", 0.3, "wrong"), ("i3", 0.7, "edited")):
            record_scores(s, ScoreInput(inv, "checkout", "control", "rubric-1", dict.fromkeys(DIMS, value)))
            add_feedback(s, inv, target="rca", verdict=verdict, by="sre", corrected_entity="db")
        record_scores(s, ScoreInput("i4", "payment", "control", "rubric-1", dict.fromkeys(DIMS, 0.9)))  # not rated
        s.commit()
    engine.dispose()
    report = _run("judge")
    assert "  checkout  judged=3  overall=0.600" in report and "  payment  judged=1  overall=0.900" in report
    assert "  control  judged=4" in report
    # 0.8 accepted and 0.3 wrong agree; 0.7 edited (the RCA needed fixing) does not
    assert "  rubric-1  67% (2 of 3 rated RCAs)" in report
