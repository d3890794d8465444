"""Teams: the three-layer message as an Adaptive Card 1.4 through a local Workflows webhook, with signed buttons."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import SecretStr
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.notify.approval_links import LINK_PATH, LinkRefused, read
from rootward.notify.message import Notification
from rootward.notify.outbox import OutboxDispatcher, enqueue
from rootward.notify.settings import NotifySettings
from rootward.notify.teams import TeamsChannel, TeamsSettings, adaptive_card
from rootward.store.outbox import OutboxRow
from tests.notify.protocol_servers import Target, teams_route
from tests.notify.test_headline_message import _note as headline_note
from tests.sources.local_http import serve

SECRET = "teams-link-secret"
# What each Adaptive Card element this card uses must carry (schema 1.4), and nothing unknown.
REQUIRED: dict[str, set[str]] = {"TextBlock": {"text"}, "Action.OpenUrl": {"url", "title"}}
ALLOWED: dict[str, set[str]] = {
    "TextBlock": {"type", "text", "wrap", "weight", "size", "color", "isSubtle", "spacing"},
    "Action.OpenUrl": {"type", "title", "url", "style"},
}


def _check_card(payload: dict[str, Any]) -> dict[str, Any]:
    assert payload["type"] == "message"
    [attachment] = payload["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert card["type"] == "AdaptiveCard" and card["version"] == "1.4"
    assert card["$schema"] == "http://adaptivecards.io/schemas/adaptive-card.json"
    for element in card["body"] + card.get("actions", []):
        kind = element["type"]
        assert REQUIRED[kind] <= set(element) <= ALLOWED[kind], element
        assert all(isinstance(element[k], str) and element[k] for k in REQUIRED[kind])
    return dict(card)


def _texts(card: dict[str, Any]) -> list[str]:
    return [b["text"] for b in card["body"]]


def test_card_leads_with_the_headline_then_summary_facts_and_evidence() -> None:
    note = replace(headline_note(), evidence=("metrics.csv:payment/db_connections_in_use@12-18",))
    card = _check_card(adaptive_card(note))
    texts = _texts(card)
    assert texts[0] == "[L3 P1] HighErrorRate on checkout"
    assert texts[1] == "Root cause found: a bad configuration change at payment (config_error)"
    assert texts.index("Raw facts") < texts.index("Evidence")
    facts = texts[texts.index("Raw facts") + 1]
    assert "- H2: checkout network_latency consistent, weaker (0.30)" in facts  # hypotheses, never two causes
    assert "Evidence: E1" in texts  # the headline card names its evidence ids
    assert texts[texts.index("Evidence") + 1] == "- metrics.csv:payment/db_connections_in_use@12-18"
    assert texts[-1] == "investigation inv-1"
    assert "actions" not in card  # no console URL, no link secret: nothing to click


def test_a_proposal_gets_signed_approve_and_reject_links_bound_to_its_approval() -> None:
    channel = TeamsChannel(
        TeamsSettings(webhook_url=SecretStr("http://x"), link_secret=SecretStr(SECRET), link_ttl_s=600),
        "http://rootward.example",
    )
    now = time.time()
    links = channel.approval_links(headline_note(), now)
    assert links is not None
    card = _check_card(adaptive_card(headline_note(), links))
    approve, reject = card["actions"]
    assert (approve["title"], approve["style"], reject["title"], reject["style"]) == (
        "Approve", "positive", "Reject", "destructive",
    )  # fmt: skip
    for action, decision in ((approve, "approve"), (reject, "reject")):
        assert action["url"].startswith(f"http://rootward.example{LINK_PATH}")
        link = read(SECRET, action["url"].rsplit("/", 1)[1], now=now)
        assert (link.approval_id, link.decision, link.channel) == ("a1", decision, "teams")
        assert now + 599 <= link.expires_at <= now + 601
    with pytest.raises(LinkRefused, match="expired"):
        read(SECRET, approve["url"].rsplit("/", 1)[1], now=now + 601)
    no_secret = TeamsChannel(TeamsSettings(webhook_url=SecretStr("http://x")), "http://rootward.example")
    assert no_secret.approval_links(headline_note(), now) is None


def test_card_goes_through_the_outbox_to_a_workflows_webhook_and_is_replayed_once_after_a_500(
    tmp_path: Any,
) -> None:
    from rootward.store.db import make_engine, make_session_factory

    engine = make_engine(f"sqlite:///{tmp_path / 'teams.db'}")
    OutboxRow.__table__.create(engine)  # type: ignore[attr-defined]
    sessions: sessionmaker[Session] = make_session_factory(engine)
    target = Target(mode="down")
    with serve(teams_route(target)) as (url, _seen):
        settings = NotifySettings.model_validate({"teams": {"webhook_url": url + "/workflows/hook", "timeout_s": 2}})
        assert settings.chat_channels() == ["teams"]
        note = Notification(
            investigation_id="inv-9", title="Disk full on db-1", tier="L1", summary="disk full", summary_source="rule"
        )
        with sessions() as s, s.begin():
            enqueue(s, note, ["teams"], key="investigation:inv-9")
        clock = [datetime.now(UTC) + timedelta(seconds=1)]
        channel = TeamsChannel(settings.teams, settings.console_url)  # type: ignore[arg-type]
        dispatcher = OutboxDispatcher(sessions, {"teams": channel}, clock=lambda: clock[0])
        assert dispatcher.deliver_once() == 0
        target.mode = "up"
        clock[0] += timedelta(seconds=5)
        assert dispatcher.deliver_once() == 1
        clock[0] += timedelta(seconds=5)
        assert dispatcher.deliver_once() == 0
    [card] = target.cards
    assert _texts(_check_card(card))[0] == "[L1] Disk full on db-1"
    assert target.requests[-1].path == "/workflows/hook"
    with sessions() as s:
        assert s.scalars(select(OutboxRow)).one().receipt == "202"
