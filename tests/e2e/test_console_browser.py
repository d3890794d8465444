"""The console in a real browser (Debian's Chromium driven by Playwright) against a real server.

Screenshots land in test-artifacts/ so a person can look at what the tests saw.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rootward.domain.investigation import InvestigationResult
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import save_investigation
from tests.e2e.console_server import REPO, ConsoleServer, running, seed
from tests.sources.local_http import Reply, serve

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.xdist_group("console_browser")]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
ARTIFACTS = REPO / "test-artifacts"

if not CHROMIUM.exists():
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)

from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleServer]:
    data_dir = tmp_path_factory.mktemp("console")
    seeded = seed(data_dir)
    with running(seeded, data_dir / "serve.log") as live:
        yield live


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _context(browser: Browser, *, dark: bool = True) -> BrowserContext:
    return browser.new_context(viewport={"width": 1360, "height": 900}, color_scheme="dark" if dark else "light")


def _sign_in(page: Page, server: ConsoleServer, user: str) -> None:
    page.goto(f"{server.url}/login")
    page.fill("input[name=token]", server.tokens[user])
    page.click("button[type=submit]")
    page.wait_for_url(f"{server.url}/incidents")


def _shot(page: Page, name: str, *, full_page: bool = False) -> None:
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 10_000, f"{path} is suspiciously small: a blank page?"


def _first_cited(page: Page, inside: str) -> str:
    """The `#ev-...` anchor of the first RCA citation whose evidence card holds `inside`."""
    ref = page.evaluate(
        """(inside) => [...document.querySelectorAll('.claims a.cite')]
            .map((a) => a.getAttribute('href'))
            .find((h) => document.querySelector(h + ' ' + inside))""",
        inside,
    )
    assert ref, f"no RCA citation leads to evidence with {inside}"
    return str(ref)


def test_pages_need_a_signed_in_user(browser: Browser, server: ConsoleServer) -> None:
    context = _context(browser)
    page = context.new_page()
    page.goto(f"{server.url}/incidents")
    assert page.url == f"{server.url}/login"
    page.fill("input[name=token]", "rw_not-a-token")
    page.click("button[type=submit]")
    expect(page.get_by_text("Unknown token.")).to_be_visible()
    _shot(page, "login-refused")
    context.close()


def test_incident_list_shows_every_imported_incident_with_its_root_cause(
    browser: Browser, server: ConsoleServer
) -> None:
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "anna")
    rows = page.locator("tbody[data-live] tr[data-href]")
    for incident_id in server.incidents.values():
        expect(page.locator(f"tbody[data-live] tr[data-href='/incidents/{incident_id}']")).to_have_count(1)
    for bundle, (entity, fault) in server.root_causes.items():  # whatever the engine concluded, shown as such
        row = page.locator(f"tbody[data-live] tr[data-href='/incidents/{server.incidents[bundle]}']")
        expect(row).to_contain_text(f"{entity} · {fault}")
    _shot(page, "incidents-dark")
    page.keyboard.press("j")
    expect(rows.first).to_have_class("sel")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{server.url}/incidents/*")
    context.close()

    light = _context(browser, dark=False)
    page = light.new_page()
    _sign_in(page, server, "anna")
    page.goto(f"{server.url}/incidents?service=payment")
    expect(page.locator("tbody[data-live] tr[data-href]")).to_have_count(1)
    _shot(page, "incidents-filtered-light")
    light.close()


def test_the_list_shows_a_newly_recorded_incident_without_a_reload(browser: Browser, server: ConsoleServer) -> None:
    context = _context(browser)
    context.clock.install()  # the page's 10 s refresh timer runs on a clock the test moves
    page = context.new_page()
    _sign_in(page, server, "vic")
    rows = page.locator("tbody[data-live] tr[data-href]")
    before = rows.count()
    engine = make_engine(f"sqlite:///{server.data_dir / 'rootward.db'}")
    try:
        with make_session_factory(engine)() as s, s.begin():
            result = InvestigationResult(bundle="ledger-disk", status="inconclusive")
            save_investigation(s, result, title="DiskFull on ledger", service="ledger", severity="P0")
    finally:
        engine.dispose()
    expect(page.get_by_text("DiskFull on ledger")).to_have_count(0)
    page.clock.fast_forward(11_000)
    expect(page.get_by_text("DiskFull on ledger")).to_be_visible()
    expect(rows).to_have_count(before + 1)
    expect(rows.first).to_contain_text("ledger")
    _shot(page, "incidents-live-refresh")
    context.close()


def test_clicking_a_citation_shows_its_evidence(browser: Browser, server: ConsoleServer) -> None:
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "rita")
    page.locator("tbody[data-live] a", has_text="HighLatencyP99").first.click()
    incident_id = server.incidents["shop-connection-pool-exhaustion-00"]
    page.wait_for_url(f"{server.url}/incidents/{incident_id}")
    expect(page.locator("h2", has_text="Root-cause analysis")).to_be_visible()
    _shot(page, "incident-dark")

    # A log citation: the cited line is highlighted among its neighbours.
    log_ref = _first_cited(page, ".logline.hit")
    page.locator(f".claims a.cite[href='{log_ref}']").first.click()
    assert page.url.endswith(log_ref)
    card = page.locator(log_ref)
    expect(card).to_be_in_viewport()
    expect(card.locator(".logline.hit")).to_be_visible()
    _shot(page, "citation-log")

    # A metric citation: a chart of the cited window.
    metric_ref = _first_cited(page, "svg.chart")
    page.locator(f".claims a.cite[href='{metric_ref}']").first.click()
    expect(page.locator(f"{metric_ref} svg.chart")).to_be_in_viewport()
    _shot(page, "citation-metric")
    context.close()


def test_a_responder_asks_a_follow_up_and_corrects_the_rca(browser: Browser, server: ConsoleServer) -> None:
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "rita")
    page.goto(f"{server.url}/incidents/{server.incidents['shop-disk-full-03']}")
    page.get_by_label("question").fill("what changed before the incident?")
    page.get_by_role("button", name="Ask").click()
    expect(page.locator("form[action*='/ask'] pre")).to_be_visible()
    page.get_by_label("verdict").select_option("wrong")
    page.get_by_label("corrected entity").fill("node-2")
    page.get_by_label("corrected fault type").fill("disk_full")
    page.get_by_role("button", name="Send feedback").click()
    expect(page.get_by_text("rita: wrong → node-2 disk_full")).to_be_visible()
    _shot(page, "feedback", full_page=False)
    page.goto(f"{server.url}/quality")
    expect(page.locator("tbody tr", has_text="payment")).to_contain_text("0%")
    _shot(page, "quality")
    context.close()


def test_an_approver_approves_a_pending_proposal(browser: Browser, server: ConsoleServer) -> None:
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "anna")
    bundle = "shop-connection-pool-exhaustion-00"
    approval_id = server.approvals[bundle]
    page.goto(f"{server.url}/incidents/{server.incidents[bundle]}#approval-{approval_id}")
    card = page.locator(f"#approval-{approval_id}")
    expect(card.locator(".pill", has_text="pending")).to_be_visible()
    _shot(page, "approval-pending")
    card.get_by_role("button", name="Approve").click()
    card = page.locator(f"#approval-{approval_id}")
    expect(card.locator(".pill", has_text="approved")).to_be_visible()
    expect(card).to_contain_text("approved by anna in the console")
    expect(card.get_by_role("button", name="Approve")).to_have_count(0)
    _shot(page, "approval-approved")
    page.get_by_role("link", name="Approvals").click()
    row = page.locator("tbody tr", has=page.locator(f"a[href$='#approval-{approval_id}']"))
    expect(row).to_contain_text("roll back payment to revision 41 (namespace shop)")
    expect(row.locator(".pill", has_text="approved")).to_be_visible()
    _shot(page, "approvals-list")
    context.close()


def test_a_viewer_cannot_approve(browser: Browser, server: ConsoleServer) -> None:
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "vic")
    bundle = "shop-deploy-regression-01"
    approval_id = server.approvals[bundle]
    page.goto(f"{server.url}/incidents/{server.incidents[bundle]}#approval-{approval_id}")
    card = page.locator(f"#approval-{approval_id}")
    expect(card).to_contain_text("Only approvers can approve.")
    expect(card.get_by_role("button", name="Approve")).to_have_count(0)
    _shot(page, "approval-viewer")
    # Posting the form anyway (a crafted request with the viewer's cookie and CSRF token) is refused too.
    csrf = page.locator("meta[name=csrf-token]").get_attribute("content")
    assert csrf
    response = page.request.post(
        f"{server.url}/approvals/{approval_id}/approve",
        form={"csrf_token": csrf},
        headers={"origin": server.url},
        max_redirects=0,
    )
    assert response.status == 403
    assert "approver" in response.text()
    context.close()
    still = httpx.get(
        f"{server.url}/approvals", headers={"authorization": f"Bearer {server.tokens['anna']}"}, timeout=10
    )
    assert approval_id in still.text
    assert (
        "approval-" + approval_id
        in httpx.get(
            f"{server.url}/incidents/{server.incidents[bundle]}",
            headers={"authorization": f"Bearer {server.tokens['anna']}"},
            timeout=10,
        ).text
    )


def _approval_status(server: ConsoleServer, approval_id: str) -> str:
    listed = httpx.get(
        f"{server.url}/api/v1/approvals", headers={"authorization": f"Bearer {server.tokens['anna']}"}, timeout=10
    ).json()
    return str(next(a["status"] for a in listed if a["id"] == approval_id))


def test_a_page_on_another_port_cannot_approve_as_the_signed_in_approver(
    browser: Browser, server: ConsoleServer
) -> None:
    """Issue 14's attack: same host, other port (same site), an auto-submitted form and a no-cors fetch."""
    approval_id = server.approvals["csrf-target"]
    target = f"{server.url}/approvals/{approval_id}/approve"
    api = f"{server.url}/api/v1/approvals/{approval_id}/approve"
    attack = f"""<!doctype html><html><body>
<form id="f" method="post" action="{target}"><input name="csrf_token" value="guessed"></form>
<script>
fetch("{api}", {{method: "POST", credentials: "include", mode: "no-cors"}})
  .finally(() => document.getElementById("f").submit());
</script></body></html>"""
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "anna")
    with serve(lambda _request: Reply(body=attack, headers={"Content-Type": "text/html"})) as (evil, _):
        assert evil.split(":")[1] == server.url.split(":")[1]  # the same host, so the same site
        with page.expect_response(target) as refused:
            page.goto(evil)
    assert refused.value.status == 403
    expect(page.get_by_text("cross-site request refused")).to_be_visible()
    _shot(page, "csrf-refused")
    assert _approval_status(server, approval_id) == "pending"
    # The approver's own console still works: the same approval, approved from its page.
    page.goto(f"{server.url}/incidents/{server.incidents['shop-deploy-regression-01']}#approval-{approval_id}")
    page.locator(f"#approval-{approval_id}").get_by_role("button", name="Approve").click()
    expect(page.locator(f"#approval-{approval_id} .pill", has_text="approved")).to_be_visible()
    assert _approval_status(server, approval_id) == "approved"
    context.close()


def _summary(server: ConsoleServer, bundle: str) -> dict[str, object]:
    """What the API says about an incident: its headline card and each proposal's one status."""
    reply = httpx.get(
        f"{server.url}/api/v1/investigations/{server.incidents[bundle]}",
        headers={"authorization": f"Bearer {server.tokens['anna']}"},
        timeout=10,
    )
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def test_the_headline_card_tops_the_incident_with_the_cause_and_the_one_action(
    browser: Browser, server: ConsoleServer
) -> None:
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "vic")
    page.goto(f"{server.url}/incidents/{server.incidents['shop-connection-pool-exhaustion-00']}")
    card = page.locator("section.headline")
    expect(card).to_be_in_viewport()
    expect(card.locator(".verdict")).to_contain_text("Root cause found")
    expect(card.locator(".cause")).to_contain_text("a bad configuration change at payment (config_error)")
    expect(card.locator(".cause")).to_contain_text("through connection pool exhaustion")
    expect(card.locator(".since")).to_contain_text("min before the alert")
    expect(card).to_contain_text("confidence 0.84")
    expect(card.locator(".action-text")).to_have_text("revert config-7596 on payment")
    expect(card).to_contain_text("no executor configured: approving records the decision only")
    expect(card).to_contain_text("Only approvers can approve.")
    box = card.bounding_box()
    rca = page.locator("h2", has_text="Root-cause analysis").bounding_box()
    assert box and rca and box["y"] < rca["y"], "the headline comes before the RCA"
    # The answer is clear, so the hypotheses wait, collapsed; the leader alone reads "validated".
    hypotheses = page.locator("details.hypotheses")
    expect(hypotheses).not_to_have_attribute("open", "")
    _shot(page, "headline-card")
    hypotheses.locator("summary").click()
    expect(hypotheses.locator("tbody .pill", has_text="validated")).to_have_count(1)
    hypotheses.scroll_into_view_if_needed()
    _shot(page, "headline-hypotheses-expanded")
    # The cited evidence is one click away.
    first = card.locator("a.cite").first
    ref = first.get_attribute("href")
    first.click()
    expect(page.locator(str(ref))).to_be_in_viewport()
    context.close()


def test_approving_from_the_headline_shows_one_status_in_the_console_and_the_api(
    browser: Browser, server: ConsoleServer
) -> None:
    bundle = "nezha-ob-2022-08-22-0518-currencyservice"  # an imported real case: its proposal got a request
    before = _summary(server, bundle)
    headline = before["headline"]
    assert isinstance(headline, dict) and headline["approval_id"], before
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "anna")
    page.goto(f"{server.url}/incidents/{server.incidents[bundle]}")
    card = page.locator("section.headline")
    expect(card.locator(".pill[data-status]")).to_have_text("pending")
    _shot(page, "headline-pending")
    card.get_by_role("button", name="Approve").click()
    page.wait_for_url("**#headline")
    card = page.locator("section.headline")
    expect(card.locator(".pill[data-status]")).to_have_text("approved")
    expect(card.get_by_role("button", name="Approve")).to_have_count(0)
    expect(card.locator(".status-words")).to_have_text("approved by anna in the console")
    remediation = page.locator(f"#approval-{headline['approval_id']}")
    expect(remediation.locator(".pill").first).to_have_text("approved")
    expect(remediation.locator(".status-words")).to_have_text("approved by anna in the console")
    expect(page.get_by_text("pending_approval")).to_have_count(0)
    card.scroll_into_view_if_needed()
    _shot(page, "headline-approved")
    [proposal] = _summary(server, bundle)["proposals"]  # type: ignore[misc]
    assert (proposal["status"], proposal["decided_via"], proposal["status_text"]) == (
        "approved",
        "console",
        "approved by anna in the console",
    )
    context.close()


def test_refused_forms_stay_in_the_console_with_the_reason_beside_them(browser: Browser, server: ConsoleServer) -> None:
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "rita")
    url = f"{server.url}/incidents/{server.incidents['nezha-ob-2022-08-23-1605-adservice']}"
    page.goto(url)
    page.get_by_label("verdict").select_option("wrong")
    page.get_by_label("corrected fault type").fill("network_latency")
    with page.expect_response(f"{url}/feedback") as refused:
        page.get_by_role("button", name="Send feedback").click()
    assert refused.value.status == 400
    error = page.locator("form[action$='/feedback'] .form-error")
    expect(error).to_have_text("a wrong RCA needs the corrected root cause entity")
    expect(page.get_by_label("corrected fault type")).to_have_value("network_latency")  # nothing typed is lost
    expect(page.locator("section.headline")).to_be_visible()  # still the console page, not a JSON error
    _shot(page, "feedback-refused-inline")
    context.close()

    # A viewer who posts Approve anyway: the same 403 and words as the API, shown on the page.
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "vic")
    bundle = "shop-deploy-regression-01"
    approval_id = server.approvals[bundle]
    api = httpx.post(
        f"{server.url}/api/v1/approvals/{approval_id}/approve",
        headers={"authorization": f"Bearer {server.tokens['vic']}"},
        timeout=10,
    )
    page.goto(f"{server.url}/incidents/{server.incidents[bundle]}")
    csrf = page.locator("meta[name=csrf-token]").get_attribute("content")
    page.evaluate(
        """([action, csrf]) => { const f = document.createElement('form'); f.method = 'post'; f.action = action;
            const i = document.createElement('input'); i.name = 'csrf_token'; i.value = csrf; f.appendChild(i);
            document.body.appendChild(f); f.submit(); }""",
        [f"/approvals/{approval_id}/approve", csrf],
    )
    alert = page.locator(f"#approval-{approval_id} .form-error")
    expect(alert).to_have_text(api.json()["detail"])
    assert api.status_code == 403
    alert.scroll_into_view_if_needed()
    _shot(page, "approval-refused-inline")
    context.close()


def test_a_responder_takes_an_incident_through_its_life_cycle(browser: Browser, server: ConsoleServer) -> None:
    bundle = "nezha-ob-2022-08-22-0509-checkoutservice"
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "rita")
    page.goto(f"{server.url}/incidents?state=open")
    expect(page.locator(f"tr[data-href='/incidents/{server.incidents[bundle]}']")).to_have_count(1)
    page.goto(f"{server.url}/incidents/{server.incidents[bundle]}")
    card = page.locator("section.lifecycle")
    expect(card.locator("[data-state]")).to_have_text("open")
    card.get_by_role("button", name="Acknowledge").click()
    card = page.locator("section.lifecycle")
    expect(card.locator("[data-state]")).to_have_text("acknowledged")
    expect(card.locator(".assignee")).to_have_text("assigned to rita")
    card.get_by_label("assignee").fill("sam")
    card.get_by_role("button", name="Assign").click()
    card = page.locator("section.lifecycle")
    expect(card.locator(".assignee")).to_have_text("assigned to sam")
    expect(card.get_by_label("confirmed root cause entity")).to_have_value("checkoutservice")
    card.get_by_label("resolution note").fill("rolled back the checkout release")
    _shot(page, "lifecycle-acknowledged")
    card.get_by_role("button", name="Resolve").click()
    card = page.locator("section.lifecycle")
    expect(card.locator("[data-state]")).to_have_text("resolved")
    expect(card.locator(".resolution")).to_contain_text("root cause checkoutservice deploy_regression")
    timeline = page.locator("ul.incident-timeline")
    expect(timeline.locator("li[data-kind=acknowledged]")).to_contain_text("assigned to rita")
    expect(timeline.locator("li[data-kind=resolved]")).to_contain_text("rolled back the checkout release")
    expect(page.get_by_text("rita: accepted")).to_be_visible()  # the resolution is the RCA's feedback
    timeline.scroll_into_view_if_needed()
    _shot(page, "lifecycle-timeline")
    page.goto(f"{server.url}/incidents?state=resolved")
    expect(page.locator(f"tr[data-href='/incidents/{server.incidents[bundle]}']")).to_have_count(1)
    page.goto(f"{server.url}/incidents?state=open")
    expect(page.locator(f"tr[data-href='/incidents/{server.incidents[bundle]}']")).to_have_count(0)
    _shot(page, "incidents-open")
    context.close()


def test_a_simulated_incident_carries_a_marker_in_the_list_and_on_its_page(
    browser: Browser, server: ConsoleServer
) -> None:
    engine = make_engine(f"sqlite:///{server.data_dir / 'rootward.db'}")
    try:
        with make_session_factory(engine)() as s, s.begin():
            result = InvestigationResult(bundle="shop-demo-000", status="validated")
            demo = save_investigation(
                s, result, title="HighErrorRate on cart (demo)", service="cart", severity="P1", source="simulated"
            ).id
    finally:
        engine.dispose()
    context = _context(browser)
    page = context.new_page()
    _sign_in(page, server, "vic")
    row = page.locator(f"tbody[data-live] tr[data-href='/incidents/{demo}']")
    expect(row.locator(".pill.source-simulated")).to_have_text("simulated")
    real = page.locator(f"tbody[data-live] tr[data-href='/incidents/{server.incidents['shop-disk-full-03']}']")
    expect(real.locator(".pill.source-simulated")).to_have_count(0)
    _shot(page, "incidents-demo-marker")
    page.goto(f"{server.url}/incidents?source=live")
    expect(page.locator(f"tr[data-href='/incidents/{demo}']")).to_have_count(0)
    page.goto(f"{server.url}/incidents/{demo}")
    marker = page.locator(".demo-marker")
    expect(marker).to_be_in_viewport()
    expect(marker).to_contain_text("Simulated incident")
    expect(marker).to_contain_text("never filed into the knowledge base")
    _shot(page, "incident-demo-marker")
    context.close()
