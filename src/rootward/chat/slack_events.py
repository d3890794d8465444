"""Slack's Events API: which deliveries are questions in an incident's thread.

Slack posts every subscribed event to one request URL, signed like the
interactivity callback, and expects a 2xx within 3 seconds or it retries
(`X-Slack-Retry-Num`), up to three times. The route verifies the signature
(`actions/slack_interaction.SlackVerifier`), answers `url_verification`
with its challenge, and hands an `event_callback` here: `thread_message`
says whether it is a question for rootward, and `chat/threads.handle`
answers it once per `event_id` and queues the reply for the outbox, so the
request returns as soon as that transaction commits whatever Slack's Web
API is doing.

Socket Mode (`chat/slack_socket.py`) carries the very same `event_callback`
payloads inside its envelopes, and hands them to `answer_event` too, so both
transports answer alike and an event is answered once whichever brought it.

A question is an `app_mention` inside a thread, or a plain message reply in
a thread; a message that also mentions the bot is left to its
`app_mention` (Slack sends both), and messages from bots, edits and other
subtypes are ignored (rootward's own replies among them).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from sqlalchemy.orm import Session, sessionmaker

from rootward.chat.threads import Outcome, ThreadMessage, handle
from rootward.llm.settings import LLMSettings
from rootward.notify.threads import ThreadRef

EventOutcome = Outcome | Literal["ignored"]


class ByEventId:
    """The `ReplayCache` of the events endpoint: signatures are not remembered, events are.

    Slack re-sends an event it thinks was lost, and a retry signed in the same
    second carries the very same signature; refusing it as a replay could lose
    a question whose first delivery failed. Deduplication is by `event_id`
    instead (`chat/threads.handle`), so a replayed request is answered
    `duplicate` and changes nothing.
    """

    def first_sighting(self, signature: str, at: float) -> bool:
        return True


class SlackEventRefused(ValueError):
    """The body is not an Events API payload; the message says why."""


def envelope(body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except ValueError:
        raise SlackEventRefused("body is not JSON") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("type"), str):
        raise SlackEventRefused("not an Events API payload (no type)")
    return payload


def _bot_ids(payload: dict[str, Any]) -> set[str]:
    return {
        str(a.get("user_id")) for a in payload.get("authorizations") or [] if isinstance(a, dict) and a.get("is_bot")
    }


def thread_message(payload: dict[str, Any]) -> ThreadMessage | None:
    """The question an `event_callback` carries, or None when it is not one for rootward."""
    event = payload.get("event")
    event_id = payload.get("event_id")
    if not isinstance(event, dict) or not isinstance(event_id, str):
        return None
    kind, thread, text = event.get("type"), event.get("thread_ts"), event.get("text") or ""
    sender, channel, ts = event.get("user"), event.get("channel"), event.get("ts")
    if kind not in ("app_mention", "message") or not thread or thread == ts and kind == "message":
        return None  # not in a thread (a thread's root is not a reply)
    if event.get("bot_id") or event.get("subtype") or not sender or not channel or not ts:
        return None
    if kind == "message" and any(f"<@{bot}>" in text for bot in _bot_ids(payload)):
        return None  # its app_mention twin answers it
    if sender in _bot_ids(payload):
        return None
    return ThreadMessage("slack", event_id, str(sender), str(text), ThreadRef(str(channel), str(thread), str(ts)))


def answer_event(
    sessions: sessionmaker[Session], payload: dict[str, Any], *, llm: LLMSettings | None = None
) -> EventOutcome:
    """Answer the question an Events API payload carries (once per event id); `ignored` when it carries none.

    `llm`: the model a question is answered with (None or provider `none`: rule mode)."""
    message = thread_message(payload) if payload.get("type") == "event_callback" else None
    return handle(sessions, message, llm=llm) if message is not None else "ignored"
