"""Issue 14, defect 2: values the store cannot hold are a 400 (or cleaned), never a 500 on PostgreSQL.

Changes: a NUL in `summary` or `diff` is removed and the change recorded.
Feedback: a corrected entity or fault longer than its column is a 400 naming it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from rootward.domain.investigation import InvestigationResult
from rootward.domain.roles import Role
from rootward.settings import load_settings
from rootward.store.changes import ChangeRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import FeedbackRow, save_investigation
from rootward.store.users import add_user, create_token
from rootward.web.app import create_app
from tests.web.signin import sign_in

AUTH = {"Authorization": "Bearer t0ken"}


@pytest.fixture
def engine(migrated_db_url: str) -> Iterator[Engine]:
    engine = make_engine(migrated_db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def client(engine: Engine, tmp_path: Path) -> Iterator[TestClient]:
    url = engine.url.render_as_string(hide_password=False)
    settings = load_settings(
        data_dir=tmp_path, database={"url": url}, intake={"token": "t0ken"}, runtime={"workers": 0}
    )
    with TestClient(create_app(settings, engine=engine)) as c:
        yield c


@pytest.mark.parametrize("field", ["summary", "diff"])
def test_change_with_a_nul_is_recorded_without_it(client: TestClient, engine: Engine, field: str) -> None:
    response = client.post(
        "/api/v1/changes", json={"kind": "config", "service": "checkout", field: "pool\x00 20 -> 5"}, headers=AUTH
    )
    assert response.status_code == 201
    with make_session_factory(engine)() as s:
        row = s.get(ChangeRow, response.json()["id"])
        assert row is not None and getattr(row, field) == "pool 20 -> 5"


def test_change_with_an_over_long_version_is_400_naming_the_field(client: TestClient) -> None:
    response = client.post(
        "/api/v1/changes", json={"kind": "deploy", "service": "checkout", "version": "v" * 201}, headers=AUTH
    )
    assert response.status_code == 400
    assert response.json()["fields"][0]["field"] == "version" and "200" in response.json()["fields"][0]["message"]


@pytest.mark.parametrize(("field", "limit"), [("corrected_entity", 200), ("corrected_fault", 64)])
def test_feedback_with_an_over_long_correction_is_400_naming_it_and_nothing_stored(
    client: TestClient, engine: Engine, field: str, limit: int
) -> None:
    sessions = make_session_factory(engine)
    with sessions() as s, s.begin():
        add_user(s, "rita", Role.RESPONDER)
        token = create_token(s, "rita")
        result = InvestigationResult(bundle="b", status="validated")
        investigation_id = save_investigation(s, result, title="t", service="checkout").id
    csrf = sign_in(client, token)
    form = {"verdict": "wrong", "corrected_entity": "db", field: "x" * (limit + 1), "csrf_token": csrf}
    response = client.post(f"/incidents/{investigation_id}/feedback", data=form, follow_redirects=False)
    assert response.status_code == 400
    assert f"{field} is {limit + 1} characters; the limit is {limit}" in response.text
    with sessions() as s:
        assert s.scalars(select(FeedbackRow)).all() == []
