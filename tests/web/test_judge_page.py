"""Judge scores trended in the console (`/judge`), the API (`/api/v1/judge/trends`) and on `/metrics`."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import Engine

from rootward.domain.roles import Role
from rootward.llm.trial_runs import start_trial
from rootward.llm.trials import CONTROL
from rootward.settings import load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import add_feedback
from rootward.store.judge_scores import ScoreInput, record_scores
from rootward.store.users import add_user, create_token
from rootward.web.app import create_app
from tests.web.signin import sign_in

DIMS = ("evidence_grounding", "root_cause_specificity", "actionability", "calibration", "clarity")


@pytest.fixture
def engine(migrated_db_url: str) -> Iterator[Engine]:
    engine = make_engine(migrated_db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def client(engine: Engine, tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    now = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    with make_session_factory(engine)() as s, s.begin():
        add_user(s, "vic", Role.VIEWER)
        token = create_token(s, "vic")
        seeded = [  # (investigation, service, prompt version, overall, days ago, note)
            ("i1", "checkout", "write_system@control", 0.4, 2, ""),
            ("i2", "checkout", "write_system@terse", 0.6, 1, ""),
            ("i3", "checkout", "write_system@terse", 0.8, 0, "judge model unavailable (HTTP 500); rubric used"),
            ("i4", "payment", "rule", 0.9, 0, ""),
        ]
        for inv, service, version, value, ago, note in seeded:
            arm = version.split("@")[1] if "@" in version else ""
            score = ScoreInput(
                inv, service, version, "rubric-1", dict.fromkeys(DIMS, value), "t1" if arm else "", arm, note
            )
            record_scores(s, score, at=now - timedelta(days=ago))
        start_trial(s, "t1", "write_system", ["terse"], actor="a")
        add_feedback(s, "i1", target="rca", verdict="wrong", by="sre", corrected_entity="db")  # 0.4: agrees
        add_feedback(s, "i3", target="rca", verdict="accepted", by="sre")  # 0.8: agrees
        add_feedback(s, "i4", target="rca", verdict="edited", by="sre")  # 0.9 but edited: disagrees
    url = str(engine.url.render_as_string(hide_password=False))
    settings = load_settings(data_dir=tmp_path, database={"url": url}, intake={"auth": "none"}, runtime={"workers": 0})
    with TestClient(create_app(settings, engine=engine)) as c:
        yield c, token


def test_the_trend_api_gives_means_and_daily_trends_per_service_and_prompt_version(
    client: tuple[TestClient, str],
) -> None:
    c, token = client
    assert c.get("/api/v1/judge/trends").status_code == 401
    body = c.get("/api/v1/judge/trends", headers={"Authorization": f"Bearer {token}"}).json()
    service = {t["key"]: t for t in body["by_service"]}
    assert service["checkout"]["judged"] == 3 and service["checkout"]["overall"] == 0.6
    assert [round(day[2], 4) for day in service["checkout"]["daily"]] == [0.4, 0.6, 0.8]  # oldest first
    assert service["checkout"]["by_dimension"]["clarity"] == 0.6
    versions = {t["key"]: t["overall"] for t in body["by_prompt_version"]}
    assert versions == {"write_system@control": 0.4, "write_system@terse": 0.7, "rule": 0.9}
    [agreement] = body["agreement"]
    assert agreement == {"judge": "rubric-1", "compared": 3, "agreed": 2, "rate": 0.6667}
    [trial] = body["trials"]
    assert trial["samples"] == {CONTROL: 1, "terse": 2} and trial["means"] == {CONTROL: 0.4, "terse": 0.7}


def test_the_console_page_shows_the_trends_the_agreement_and_the_trial(client: tuple[TestClient, str]) -> None:
    c, token = client
    assert c.get("/judge", follow_redirects=False).headers["location"] == "/login"
    sign_in(c, token)
    html = c.get("/judge").text
    assert "<td>checkout</td><td>3</td>" in html and "<td>payment</td><td>1</td>" in html
    assert "write_system@terse" in html and '<svg class="spark"' in html
    assert "<td>rubric-1</td><td>3</td><td>2</td>\n<td>67%</td>" in html
    assert "control: 1 (0.400), terse: 2 (0.700)" in html


def test_metrics_carry_the_trial_arms_and_the_rubric_fallbacks(client: tuple[TestClient, str]) -> None:
    c, _ = client
    got = {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(c.get("/metrics").text)
        for s in family.samples
    }
    terse = frozenset({"trial": "t1", "arm": "terse"}.items())
    assert got[("rootward_prompt_trial_samples", terse)] == 2
    assert got[("rootward_prompt_trial_score", terse)] == 0.7
    assert got[("rootward_judge_rubric_fallbacks", frozenset())] == 1
    by_version = frozenset({"by": "prompt_version", "key": "write_system@terse", "dimension": "overall"}.items())
    assert got[("rootward_judge_score", by_version)] == 0.7
    assert got[("rootward_judge_human_agreement", frozenset({"judge": "rubric-1"}.items()))] == 0.6667
