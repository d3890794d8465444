"""Slack thread Q&A through the Events API: signed requests only, one answer per event, the ack never waits on Slack."""

from __future__ import annotations

import json
import time

import pytest
from sqlalchemy import select

from rootward.store.alerts import AlertGroupRow
from rootward.store.audit import AuditRow
from tests.chat.conftest import SECRET, SlackWorld
from tests.chat.fake_slack import BOT_USER, CHANNEL, sign, thread_event


def _reply(world: SlackWorld) -> str:
    world.dispatcher.deliver_once()
    replies = world.slack.thread_replies(world.thread_ts)
    assert replies, "no reply in the thread"
    assert replies[-1]["channel"] == CHANNEL
    return str(replies[-1]["text"])


def test_url_verification_answers_the_challenge(slack_world: SlackWorld) -> None:
    response = slack_world.post_event({"type": "url_verification", "challenge": "3eZbrw1aB", "token": "x"})
    assert response.status_code == 200 and response.json() == {"challenge": "3eZbrw1aB"}


@pytest.mark.parametrize("case", ["unsigned", "bad signature", "stale"])
def test_an_unsigned_forged_or_stale_event_is_a_401_and_answers_nothing(slack_world: SlackWorld, case: str) -> None:
    body = json.dumps(thread_event("Ev401", "what changed?", slack_world.thread_ts, user="UVIC")).encode()
    now = int(time.time())
    headers = {"content-type": "application/json"}
    if case == "bad signature":
        headers |= {"x-slack-request-timestamp": str(now), "x-slack-signature": sign("not-the-secret", body, now)}
    elif case == "stale":
        headers |= {"x-slack-request-timestamp": str(now - 600), "x-slack-signature": sign(SECRET, body, now - 600)}
    response = slack_world.client.post("/api/v1/slack/events", content=body, headers=headers)
    assert response.status_code == 401
    slack_world.dispatcher.deliver_once()
    assert slack_world.slack.thread_replies(slack_world.thread_ts) == []


def test_a_viewers_question_in_the_thread_is_answered_there_citing_the_deploy(slack_world: SlackWorld) -> None:
    event = thread_event("Ev1", "what changed before this?", slack_world.thread_ts, user="UVIC")
    response = slack_world.post_event(event)
    assert response.json() == {"ok": True, "outcome": "answered"}
    text = _reply(slack_world)
    assert slack_world.change_id in text and f"`changes.json:{slack_world.change_id}`" in text


def test_a_plain_reply_in_the_thread_is_a_question_too(slack_world: SlackWorld) -> None:
    event = thread_event("Ev2", "which logs show errors?", slack_world.thread_ts, user="UVIC", kind="message")
    assert slack_world.post_event(event).json()["outcome"] == "answered"
    assert "(log)" in _reply(slack_world)


def test_a_retried_event_is_answered_once(slack_world: SlackWorld) -> None:
    event = thread_event("EvRetry", "what changed before this?", slack_world.thread_ts, user="URITA")
    assert slack_world.post_event(event).json()["outcome"] == "answered"
    for attempt in (1, 2, 3):  # Slack's retries: the same event id, signed anew
        assert slack_world.post_event(event, retry=attempt).json()["outcome"] == "duplicate"
    slack_world.dispatcher.deliver_once()
    assert len(slack_world.slack.thread_replies(slack_world.thread_ts)) == 1


def test_the_ack_returns_within_3_s_while_slacks_api_is_slow(slack_world: SlackWorld) -> None:
    slack_world.slack.delay_s = 4.0  # every chat.postMessage now takes 4 s
    started = time.monotonic()
    response = slack_world.post_event(thread_event("EvSlow", "what changed?", slack_world.thread_ts, user="UVIC"))
    assert response.status_code == 200 and time.monotonic() - started < 3.0
    assert slack_world.change_id in _reply(slack_world)  # the outbox posts it, slowly


def test_the_bots_own_messages_and_a_mentions_message_twin_are_ignored(slack_world: SlackWorld) -> None:
    own = thread_event("EvBot", "Deploy deploy-1 ...", slack_world.thread_ts, user=BOT_USER, kind="message")
    twin = thread_event("EvTwin", f"<@{BOT_USER}> what changed?", slack_world.thread_ts, user="UVIC", kind="message")
    edited = thread_event("EvEdit", "what changed?", slack_world.thread_ts, user="UVIC", kind="message")
    edited["event"]["subtype"] = "message_changed"  # type: ignore[index]
    for event in (own, twin, edited):
        assert slack_world.post_event(event).json()["outcome"] == "ignored"


def test_a_thread_that_is_not_an_incident_gets_no_answer(slack_world: SlackWorld) -> None:
    event = thread_event("EvOther", "what changed?", "1111111111.000001", user="UVIC")
    assert slack_world.post_event(event).json()["outcome"] == "not_an_incident_thread"


def test_someone_unknown_to_rootward_is_refused(slack_world: SlackWorld) -> None:
    slack_world.post_event(thread_event("EvWho", "what changed?", slack_world.thread_ts, user="USTRANGER"))
    assert _reply(slack_world).startswith("refused: USTRANGER is not a rootward user")


def test_a_viewer_cannot_rerun_ack_or_resolve(slack_world: SlackWorld) -> None:
    for number, command in enumerate(("rerun", "ack", "resolve")):
        slack_world.post_event(thread_event(f"EvV{number}", command, slack_world.thread_ts, user="UVIC"))
        assert _reply(slack_world) == f"refused: vic is viewer; {command} needs responder"


def test_a_responder_acks_and_resolves_and_both_are_audited(slack_world: SlackWorld) -> None:
    slack_world.post_event(thread_event("EvAck", "ack", slack_world.thread_ts, user="URITA"))
    assert _reply(slack_world) == "Acknowledged by rita."
    slack_world.post_event(thread_event("EvRes", "resolve", slack_world.thread_ts, user="URITA"))
    assert _reply(slack_world).startswith("Resolved by rita")
    with slack_world.sessions() as session:
        kinds = [
            r.kind
            for r in session.scalars(
                select(AuditRow).where(AuditRow.subject == slack_world.incident_id).order_by(AuditRow.id)
            )
        ]
    assert kinds == ["incident.acknowledged", "incident.resolved"]


def test_rerun_of_an_imported_bundle_says_there_is_no_alert_group(slack_world: SlackWorld) -> None:
    slack_world.post_event(thread_event("EvRerun", "rerun", slack_world.thread_ts, user="URITA"))
    assert "no alert group" in _reply(slack_world).lower() or "not an alert group" in _reply(slack_world)
    with slack_world.sessions() as session:
        assert session.scalar(select(AlertGroupRow)) is None


def test_why_not_names_what_the_investigation_tested(slack_world: SlackWorld) -> None:
    slack_world.post_event(thread_event("EvWhy", "why not cart?", slack_world.thread_ts, user="UVIC"))
    text = _reply(slack_world)
    assert text.startswith("cart ") and ("was tested" in text or "was ruled out" in text or "not a candidate" in text)


def test_approving_in_the_thread_needs_the_approver_role(slack_world: SlackWorld) -> None:
    slack_world.post_event(thread_event("EvAp1", "approve", slack_world.thread_ts, user="UANNA"))
    assert _reply(slack_world) == "No pending approval for this incident."
