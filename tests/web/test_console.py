from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from rootward.domain.investigation import InvestigationResult
from rootward.domain.roles import Role
from rootward.settings import load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import add_feedback, quality_by_service, save_investigation
from rootward.store.users import add_user, create_token
from rootward.web.app import create_app
from tests.web.signin import sign_in

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _result(status: str, *entities: str, **fields: Any) -> InvestigationResult:
    return InvestigationResult.model_validate(
        {
            "bundle": "b",
            "status": status,
            "hypotheses": [
                {
                    "id": f"H{i}",
                    "entity": e,
                    "fault_type": "deploy_regression",
                    "status": "validated",
                    "confidence": 0.5,
                }
                for i, e in enumerate(entities, 1)
            ],
            "claims": [],
            "evidence": {},
            "gaps": [],
            "timing": {"first_hypothesis_ms": 120, "total_ms": 900},
            **fields,
        }
    )


@pytest.fixture
def engine(migrated_db_url: str) -> Iterator[Engine]:
    engine = make_engine(migrated_db_url)
    yield engine
    engine.dispose()


def test_quality_counts_acceptance_and_false_escalations_per_service(engine: Engine) -> None:
    sessions = make_session_factory(engine)
    with sessions() as s, s.begin():
        rows = [
            ("checkout", _result("inconclusive", "payment", "db"), "accepted", None),  # escalated needlessly
            ("checkout", _result("inconclusive", "payment", "db"), "wrong", "db"),  # truth was among them
            ("checkout", _result("inconclusive", "payment"), "wrong", "cache"),  # truth was not: right to escalate
            ("checkout", _result("validated", "payment"), "edited", None),
            ("checkout", _result("validated", "payment"), None, None),  # not rated
            ("payment", _result("validated", "db"), "wrong", "payment"),
        ]
        for n, (service, result, verdict, corrected) in enumerate(rows):
            row = save_investigation(s, result, title="t", service=service, created_at=T0 + timedelta(minutes=n))
            if verdict:
                add_feedback(s, row.id, target="rca", verdict=verdict, by="rita", corrected_entity=corrected)
    with sessions() as s:
        quality = {q.service: q for q in quality_by_service(s)}
    checkout = quality["checkout"]
    assert (checkout.investigations, checkout.rated, checkout.accepted, checkout.false_escalations) == (5, 4, 2, 2)
    assert checkout.acceptance_rate == 0.5
    assert (quality["payment"].rated, quality["payment"].accepted, quality["payment"].false_escalations) == (1, 0, 0)


@pytest.fixture
def console(engine: Engine, tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str], list[str]]]:
    sessions = make_session_factory(engine)
    ids = []
    with sessions() as s, s.begin():
        tokens = {}
        for name, role in (("vic", Role.VIEWER), ("rita", Role.RESPONDER)):
            add_user(s, name, role)
            tokens[name] = create_token(s, name)
        for n, service in enumerate(("checkout", "payment", "payment")):
            row = save_investigation(
                s,
                _result("validated", service),
                title=f"HighErrorRate on {service}",
                service=service,
                created_at=T0 + timedelta(minutes=n),
            )
            ids.append(row.id)
    url = str(engine.url.render_as_string(hide_password=False))
    settings = load_settings(data_dir=tmp_path, database={"url": url}, intake={"auth": "none"}, runtime={"workers": 0})
    with TestClient(create_app(settings, engine=engine)) as client:
        yield client, tokens, ids


def test_console_pages_redirect_to_login_without_a_token(console: tuple[TestClient, dict[str, str], list[str]]) -> None:
    client, _, ids = console
    for path in ("/incidents", f"/incidents/{ids[0]}", "/quality", "/approvals"):
        response = client.get(path, follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"] == "/login"


def test_incident_list_filters_by_service_newest_first(console: tuple[TestClient, dict[str, str], list[str]]) -> None:
    client, tokens, ids = console
    sign_in(client, tokens["vic"])
    page = client.get("/incidents?service=payment").text
    assert "HighErrorRate on payment" in page and "HighErrorRate on checkout" not in page
    assert page.index(f"/incidents/{ids[2]}") < page.index(f"/incidents/{ids[1]}")
    rows = client.get("/incidents/rows").text
    assert rows.count("<tr data-href") == 3


def test_feedback_needs_the_responder_role_and_a_corrected_cause_when_wrong(
    console: tuple[TestClient, dict[str, str], list[str]],
) -> None:
    client, tokens, ids = console
    csrf = sign_in(client, tokens["vic"])
    form = {"verdict": "accepted", "csrf_token": csrf}
    assert client.post(f"/incidents/{ids[0]}/feedback", data=form, follow_redirects=False).status_code == 403
    csrf = sign_in(client, tokens["rita"])
    form = {"verdict": "accepted", "csrf_token": csrf}
    wrong = client.post(
        f"/incidents/{ids[0]}/feedback", data={"verdict": "wrong", "csrf_token": csrf}, follow_redirects=False
    )
    assert wrong.status_code == 400 and "corrected root cause" in wrong.text
    ok = client.post(f"/incidents/{ids[0]}/feedback", data=form, follow_redirects=False)
    assert ok.status_code == 303
    assert "rita: accepted" in client.get(f"/incidents/{ids[0]}").text
    assert "100%" in client.get("/quality").text


def test_unknown_incident_is_a_404(console: tuple[TestClient, dict[str, str], list[str]]) -> None:
    client, tokens, _ = console
    sign_in(client, tokens["vic"])
    assert client.get("/incidents/nope").status_code == 404


def test_accepted_rca_becomes_a_proposed_runbook_draft(console: tuple[TestClient, dict[str, str], list[str]]) -> None:
    from rootward.knowledge.drafts import list_drafts

    client, tokens, ids = console
    csrf = sign_in(client, tokens["rita"])
    form = {"verdict": "accepted", "note": "rolled back the pool change", "csrf_token": csrf}
    assert client.post(f"/incidents/{ids[0]}/feedback", data=form, follow_redirects=False).status_code == 303
    [draft] = list_drafts(client.app.state.sessions)  # type: ignore[attr-defined]
    assert draft.status == "proposed" and draft.investigation_id == ids[0]
    assert "rolled back the pool change" in draft.body


def test_with_a_model_configured_the_draft_gets_a_cited_summary_charged_to_the_incident(
    engine: Engine, tmp_path: Path
) -> None:
    import json as _json

    from rootward.knowledge.drafts import list_drafts
    from rootward.store.llm_calls import costs_by
    from tests.fixtures.fake_llm import FakeLLMServer

    cite = "metrics.csv:payment/db_connections_in_use@1-2"
    result = _result(
        "validated",
        "payment",
        evidence={"E1": {"kind": "metric", "cite": cite, "excerpt": "payment connections up from 12 to 50"}},
    )
    result.hypotheses[0].evidence = ["E1"]
    sessions = make_session_factory(engine)
    with sessions() as s, s.begin():
        add_user(s, "rita", Role.RESPONDER)
        token = create_token(s, "rita")
        row = save_investigation(s, result, title="HighLatencyP99 on checkout", service="checkout", created_at=T0)
        investigation_id = row.id
    url = str(engine.url.render_as_string(hide_password=False))
    with FakeLLMServer() as server:
        server.script.append(_json.dumps({"summary": "Payment ran out of connections.", "checks": [], "cites": [cite]}))
        llm = {"provider": "openai", "base_url": server.base_url, "api_key": "t", "model": "m", "timeout_s": 2.0}
        settings = load_settings(
            data_dir=tmp_path, database={"url": url}, intake={"auth": "none"}, runtime={"workers": 0}, llm=llm
        )
        with TestClient(create_app(settings, engine=engine)) as client:
            csrf = sign_in(client, token)
            form = {"verdict": "accepted", "note": "raised the pool", "csrf_token": csrf}
            posted = client.post(f"/incidents/{investigation_id}/feedback", data=form, follow_redirects=False)
            assert posted.status_code == 303
    [draft] = list_drafts(sessions)
    assert draft.finding["prose"] == "llm"
    assert "Payment ran out of connections." in draft.body and "raised the pool" in draft.body
    with sessions() as s:
        [line] = costs_by(s, "service")
    assert line.key == "checkout" and line.calls == 1
