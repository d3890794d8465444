"""The incident page: headline first, one status per proposal, refusals inline with the API's status and words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rootward.actions.remediation import request_pending_proposals
from rootward.domain.roles import Role
from rootward.engine.record import record_bundle
from rootward.settings import load_settings
from rootward.store.approvals import ApprovalRow, approvals_of
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import add_user, create_token
from rootward.web.app import create_app
from tests.conftest import EXAMPLES
from tests.web.signin import sign_in

BUNDLE = EXAMPLES / "shop-connection-pool-exhaustion-00"  # proposes reverting config-7596 on payment


@pytest.fixture
def page(migrated_db_url: str, tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str], str, str]]:
    settings = load_settings(
        data_dir=tmp_path, database={"url": migrated_db_url}, intake={"auth": "none"}, runtime={"workers": 0}
    )
    engine = make_engine(migrated_db_url)
    sessions = make_session_factory(engine)
    with sessions() as s, s.begin():
        tokens = {}
        for name, role in (("vic", Role.VIEWER), ("rita", Role.RESPONDER), ("anna", Role.APPROVER)):
            add_user(s, name, role)
            tokens[name] = create_token(s, name)
        row = record_bundle(s, BUNDLE)
        # what `rootward import` does
        request_pending_proposals(
            s, row.id, row.investigation.proposals, settings=settings.worldmodel, ttl=settings.actions.approval_ttl
        )
        [approval] = approvals_of(s, row.id)
        ids = (row.id, approval.id)
    with TestClient(create_app(settings, engine=engine)) as client:
        yield client, tokens, *ids
    engine.dispose()


def _headline(html: str) -> str:
    found = re.search(r'<section class="card headline.*?</section>', html, re.S)
    assert found, "the page has a headline card"
    return found.group(0)


def test_the_headline_leads_with_the_cause_its_mechanism_and_the_action_with_its_buttons(page) -> None:  # type: ignore[no-untyped-def]
    client, tokens, investigation_id, approval_id = page
    sign_in(client, tokens["anna"])
    html = client.get(f"/incidents/{investigation_id}").text
    card = _headline(html)
    assert html.index("headline") < html.index("Root-cause analysis") < html.index("Hypotheses")
    assert "Root cause found" in card and "a bad configuration change at payment (config_error)" in card
    assert "through connection pool exhaustion" in card and "min before the alert" in card
    assert "revert config-7596 on payment" in card and f"/approvals/{approval_id}/approve" in card
    assert "no executor configured: approving records the decision only" in card
    assert re.search(r'href="#ev-E\d+"', card), "the cited evidence is one click away"
    assert "{'revert'" not in html  # parameters never as a raw dict
    hypotheses = html[html.index('<details class="hypotheses"') :]
    assert hypotheses.count(">validated<") <= 1, "only the leader may read validated"


def test_approving_in_the_console_changes_the_one_status_everywhere_and_records_the_console(page) -> None:  # type: ignore[no-untyped-def]
    client, tokens, investigation_id, approval_id = page
    csrf = sign_in(client, tokens["anna"])
    done = client.post(f"/approvals/{approval_id}/approve", data={"csrf_token": csrf}, follow_redirects=False)
    assert done.status_code == 303
    html = client.get(f"/incidents/{investigation_id}").text
    assert "pending_approval" not in html and 'data-status="pending"' not in html
    assert "approved by anna in the console" in _headline(html)
    api = client.get("/api/v1/approvals", headers={"authorization": f"Bearer {tokens['anna']}"}).json()
    assert (api[0]["status"], api[0]["decided_via"], api[0]["status_text"]) == (
        "approved",
        "console",
        "approved by anna in the console",
    )
    assert "approved by anna in the console" in client.get("/approvals").text
    with client.app.state.sessions() as s:  # type: ignore[attr-defined]
        assert s.get(ApprovalRow, approval_id).decided_via == "console"


def test_a_viewer_is_refused_with_the_same_status_and_words_in_the_console_and_the_api(page) -> None:  # type: ignore[no-untyped-def]
    client, tokens, investigation_id, approval_id = page
    api = client.post(f"/api/v1/approvals/{approval_id}/approve", headers={"authorization": f"Bearer {tokens['vic']}"})
    csrf = sign_in(client, tokens["vic"])
    console = client.post(f"/approvals/{approval_id}/approve", data={"csrf_token": csrf}, follow_redirects=False)
    assert api.status_code == console.status_code == 403
    assert console.headers["content-type"].startswith("text/html")
    assert api.json()["detail"] in console.text and 'role="alert"' in console.text
    again = client.post(
        f"/api/v1/approvals/{approval_id}/approve", headers={"authorization": f"Bearer {tokens['anna']}"}
    )
    assert again.status_code == 200
    decided = client.post(
        f"/api/v1/approvals/{approval_id}/reject", headers={"authorization": f"Bearer {tokens['anna']}"}
    )
    csrf = sign_in(client, tokens["anna"])
    in_console = client.post(f"/approvals/{approval_id}/reject", data={"csrf_token": csrf}, follow_redirects=False)
    assert decided.status_code == in_console.status_code == 409
    assert decided.json()["detail"] == "the request is already approved" and decided.json()["detail"] in in_console.text


def test_a_refused_feedback_form_stays_on_the_page_with_the_error_beside_it(page) -> None:  # type: ignore[no-untyped-def]
    client, tokens, investigation_id, _ = page
    csrf = sign_in(client, tokens["rita"])
    form = {"verdict": "wrong", "corrected_fault": "disk_full", "csrf_token": csrf}
    refused = client.post(f"/incidents/{investigation_id}/feedback", data=form, follow_redirects=False)
    assert refused.status_code == 400 and refused.headers["content-type"].startswith("text/html")
    feedback = refused.text[refused.text.index('id="feedback"') :]
    assert "a wrong RCA needs the corrected root cause entity" in feedback and 'value="disk_full"' in feedback
    too_long = {"verdict": "edited", "corrected_entity": "x" * 1000, "csrf_token": csrf}
    refused = client.post(f"/incidents/{investigation_id}/feedback", data=too_long, follow_redirects=False)
    assert refused.status_code == 400 and "corrected_entity is 1000 characters; the limit is" in refused.text


def test_the_api_gives_the_headline_and_the_same_proposal_status(page) -> None:  # type: ignore[no-untyped-def]
    client, tokens, investigation_id, approval_id = page
    auth = {"authorization": f"Bearer {tokens['vic']}"}
    body = client.get(f"/api/v1/investigations/{investigation_id}", headers=auth).json()
    assert body["headline"]["verdict"] == "Root cause found" and body["headline"]["approval_id"] == approval_id
    [proposal] = body["proposals"]
    assert (proposal["text"], proposal["status"], proposal["status_text"]) == (
        "revert config-7596 on payment",
        "pending",
        "waiting for an approver",
    )
    assert client.get("/api/v1/investigations/nope", headers=auth).status_code == 404


def test_a_responder_acknowledges_and_resolves_and_the_timeline_says_so(page) -> None:  # type: ignore[no-untyped-def]
    from rootward.knowledge.drafts import list_drafts

    client, tokens, investigation_id, _ = page
    csrf = sign_in(client, tokens["rita"])
    base = f"/incidents/{investigation_id}/lifecycle"
    assert client.post(f"{base}/acknowledge", data={"csrf_token": csrf}, follow_redirects=False).status_code == 303
    html = client.get(f"/incidents/{investigation_id}").text
    assert 'data-state="acknowledged"' in html and "assigned to rita" in html
    form = {"csrf_token": csrf, "entity": "payment", "fault_type": "config_error", "note": "reverted config-7596"}
    assert client.post(f"{base}/resolve", data=form, follow_redirects=False).status_code == 303
    html = client.get(f"/incidents/{investigation_id}").text
    assert 'data-state="resolved"' in html and "resolved: root cause payment config_error" in html
    timeline = html[html.index('id="timeline"') :]
    assert timeline.index("acknowledged") < timeline.index("root cause payment config_error: reverted config-7596")
    assert "rita: accepted" in html  # the resolution is the RCA's feedback
    [draft] = list_drafts(client.app.state.sessions)  # type: ignore[attr-defined]
    assert draft.investigation_id == investigation_id  # an imported incident still gets a draft to accept
    again = client.post(f"{base}/resolve", data=form, follow_redirects=False)
    api = client.post(
        f"/api/v1/investigations/{investigation_id}/resolve",
        json={},
        headers={"authorization": f"Bearer {tokens['rita']}"},
    )
    assert again.status_code == api.status_code == 409
    assert api.json()["detail"] == "the incident is already resolved" and api.json()["detail"] in again.text
    listed = client.get("/incidents?state=resolved").text
    assert f"/incidents/{investigation_id}" in listed
    assert f"/incidents/{investigation_id}" not in client.get("/incidents?state=open").text


def test_a_viewer_cannot_change_an_incident_in_the_console_or_the_api(page) -> None:  # type: ignore[no-untyped-def]
    client, tokens, investigation_id, _ = page
    api = client.post(
        f"/api/v1/investigations/{investigation_id}/acknowledge", headers={"authorization": f"Bearer {tokens['vic']}"}
    )
    csrf = sign_in(client, tokens["vic"])
    console = client.post(
        f"/incidents/{investigation_id}/lifecycle/acknowledge", data={"csrf_token": csrf}, follow_redirects=False
    )
    assert api.status_code == console.status_code == 403
    assert api.json()["detail"] in console.text
    body = client.get(
        f"/api/v1/investigations/{investigation_id}", headers={"authorization": f"Bearer {tokens['vic']}"}
    )
    assert body.json()["state"] == "open" and body.json()["source"] == "imported"


def test_simulated_incidents_carry_a_visible_marker(page) -> None:  # type: ignore[no-untyped-def]
    from rootward.domain.investigation import InvestigationResult
    from rootward.store.investigations import save_investigation

    client, tokens, imported_id, _ = page
    with client.app.state.sessions() as s, s.begin():  # type: ignore[attr-defined]
        result = InvestigationResult(bundle="shop-7-000", status="validated")
        demo = save_investigation(s, result, title="HighErrorRate on cart", service="cart", source="simulated").id
    sign_in(client, tokens["vic"])
    html = client.get(f"/incidents/{demo}").text
    assert "Simulated incident" in html and "rootward demo --purge" in html
    assert "Simulated incident" not in client.get(f"/incidents/{imported_id}").text
    rows = client.get("/incidents?source=simulated").text
    assert f"/incidents/{demo}" in rows and f"/incidents/{imported_id}" not in rows
    assert 'class="pill source-simulated"' in rows
