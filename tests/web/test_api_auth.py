"""What API clients see: bearer tokens only, 401 (never a redirect), 4xx for bad bodies, a complete schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rootward.domain.investigation import InvestigationResult
from rootward.domain.roles import Role
from rootward.settings import load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import save_investigation
from rootward.store.users import add_user, create_token
from rootward.web.app import create_app
from tests.web.signin import sign_in

RESULT = InvestigationResult.model_validate(
    {"bundle": "b", "status": "validated", "timing": {"first_hypothesis_ms": 1, "total_ms": 2}}
)


@pytest.fixture
def api(migrated_db_url: str, tmp_path: Path) -> Iterator[tuple[TestClient, str, str]]:
    engine = make_engine(migrated_db_url)
    with make_session_factory(engine)() as s, s.begin():
        add_user(s, "vic", Role.VIEWER)
        token = create_token(s, "vic")
        investigation_id = save_investigation(s, RESULT, title="t", service="checkout").id
    engine.dispose()
    settings = load_settings(
        data_dir=tmp_path, database={"url": migrated_db_url}, intake={"auth": "none"}, runtime={"workers": 0}
    )
    with TestClient(create_app(settings)) as client:
        yield client, token, investigation_id


@pytest.mark.parametrize("body", ['"what changed?"', "[]", "", "{}", '{"question": ""}', "not json"])
def test_ask_with_a_body_that_is_not_a_question_object_is_a_422(api: tuple[TestClient, str, str], body: str) -> None:
    client, token, investigation_id = api
    response = client.post(
        f"/api/v1/investigations/{investigation_id}/ask",
        content=body,
        headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert response.json()["detail"]


def test_ask_answers_a_question_from_the_evidence(api: tuple[TestClient, str, str]) -> None:
    client, token, investigation_id = api
    response = client.post(
        f"/api/v1/investigations/{investigation_id}/ask",
        json={"question": "what changed before the incident?"},
        headers={"authorization": f"Bearer {token}"},
    )
    assert response.status_code == 200 and isinstance(response.json()["answer"], str)
    missing = client.post(
        "/api/v1/investigations/nope/ask", json={"question": "why?"}, headers={"authorization": f"Bearer {token}"}
    )
    assert missing.status_code == 404


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/api/v1/feedback/export", None),
        ("POST", "/api/v1/investigations/{id}/ask", {"question": "why?"}),
        ("GET", "/api/v1/approvals", None),
    ],
)
def test_api_clients_get_401_not_a_redirect_even_with_a_console_cookie(
    api: tuple[TestClient, str, str], method: str, path: str, body: dict[str, str] | None
) -> None:
    client, token, investigation_id = api
    url = path.format(id=investigation_id)
    anonymous = client.request(method, url, json=body, follow_redirects=False)
    assert anonymous.status_code == 401 and anonymous.headers["www-authenticate"] == "Bearer"
    sign_in(client, token)
    with_cookie = client.request(method, url, json=body, follow_redirects=False)
    assert with_cookie.status_code == 401
    bearer = client.request(method, url, json=body, headers={"authorization": f"Bearer {token}"})
    assert bearer.status_code == 200


def test_the_console_exports_golden_bundles_for_its_signed_in_user(api: tuple[TestClient, str, str]) -> None:
    client, token, _ = api
    sign_in(client, token)
    response = client.get("/quality/export")
    assert response.status_code == 200 and response.headers["content-type"] == "application/gzip"


def test_the_openapi_schema_has_the_intake_bodies_and_their_error_responses(api: tuple[TestClient, str, str]) -> None:
    client, _, _ = api
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    for path in ("/api/v1/alerts/alertmanager", "/api/v1/alerts"):
        post = paths[path]["post"]
        assert "application/json" in post["requestBody"]["content"]
        assert {"202", "400", "401", "413", "415", "503"} <= set(post["responses"])
    assert {"201", "400", "401", "409", "413", "415"} <= set(paths["/api/v1/changes"]["post"]["responses"])
    alertmanager = paths["/api/v1/alerts/alertmanager"]["post"]["requestBody"]["content"]["application/json"]
    assert alertmanager["schema"] == {"$ref": "#/components/schemas/AmPayload"}
    assert "alerts" in schema["components"]["schemas"]["AmPayload"]["properties"]
    ask = paths["/api/v1/investigations/{investigation_id}/ask"]["post"]
    assert ask["security"] == [{"bearerAuth": []}] and {"401", "403", "404", "422"} <= set(ask["responses"])
    assert "503" in paths["/readyz"]["get"]["responses"]
