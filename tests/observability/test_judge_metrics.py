"""Judge scores and trial states on /metrics."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from rootward.llm.trial_runs import start_trial
from rootward.settings import load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import add_feedback
from rootward.store.judge_scores import ScoreInput, record_scores
from rootward.web.app import create_app

DIMS = ("evidence_grounding", "root_cause_specificity", "actionability", "calibration", "clarity")


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_scores_are_trended_per_service_and_prompt_version(migrated_db_url: str, tmp_path: Path) -> None:
    engine = make_engine(migrated_db_url)
    with make_session_factory(engine)() as s:
        record_scores(s, ScoreInput("i1", "checkout", "v1", "rubric-1", dict.fromkeys(DIMS, 0.5)))
        record_scores(s, ScoreInput("i2", "checkout", "v1", "rubric-1", {**dict.fromkeys(DIMS, 0.5), "clarity": 0.75}))
        start_trial(s, "t1", "write_system", ["terse"], actor="a")
        add_feedback(s, "i1", target="rca", verdict="wrong", by="sre", corrected_entity="db")  # judge 0.5: agrees
        add_feedback(s, "i2", target="rca", verdict="accepted", by="sre")  # judge 0.55: disagrees
        s.commit()
    settings = load_settings(
        data_dir=tmp_path, database={"url": migrated_db_url}, intake={"auth": "none"}, runtime={"workers": 0}
    )
    with TestClient(create_app(settings, engine=engine)) as client:
        text = client.get("/metrics").text
    engine.dispose()
    got = _samples(text)
    key = {"by": "service", "key": "checkout"}
    assert got[("rootward_judge_investigations", frozenset(key.items()))] == 2
    assert got[("rootward_judge_score", frozenset({**key, "dimension": "clarity"}.items()))] == 0.625
    assert got[("rootward_judge_score", frozenset({**key, "dimension": "overall"}.items()))] == 0.525
    assert got[("rootward_prompt_trial_state", frozenset({"trial": "t1", "state": "running"}.items()))] == 1
    assert got[("rootward_judge_metrics_error", frozenset())] == 0
    assert got[("rootward_judge_human_compared", frozenset({"judge": "rubric-1"}.items()))] == 2
    assert got[("rootward_judge_human_agreement", frozenset({"judge": "rubric-1"}.items()))] == 0.5
