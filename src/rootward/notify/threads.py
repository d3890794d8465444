"""Conversation in an incident's thread: what a message there asks, and the reply as an outbox message.

A mention of the bot or a reply in the thread of an RCA post is either a
command or a follow-up question:

| message | does | role |
|---|---|---|
| `rerun` | investigates the alert group again | responder |
| `ack` | records who acknowledged the incident | responder |
| `resolve` | marks the alert group resolved | responder |
| `approve` / `reject` [approval id] | decides the incident's pending remediation | approver |
| `why not X?` | why X is not the root cause, from the hypotheses and what was ruled out | viewer |
| anything else | a follow-up question, answered from the investigation's evidence with cites | viewer |

The reply travels through the durable outbox like any notification, keyed
by the chat event it answers: a retried event finds its key and is not
answered (or acted on) twice, and a channel that is down gets the reply
when it returns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rootward.notify.message import Notification

CommandKind = Literal["ask", "why_not", "rerun", "ack", "resolve", "approve", "reject"]
_MENTION = re.compile(r"<@[A-Z0-9]+>|@[\w.=\-/]+:[\w.\-]+(:\d+)?")  # a Slack or a Matrix user mention
_WHY_NOT = re.compile(r"^why\s+(?:not|isn'?t\s+it|wasn'?t\s+it)\s+(.+?)\??$", re.IGNORECASE)
_VERBS: dict[str, CommandKind] = {
    "rerun": "rerun",
    "re-run": "rerun",
    "ack": "ack",
    "acknowledge": "ack",
    "resolve": "resolve",
    "resolved": "resolve",
    "approve": "approve",
    "reject": "reject",
}
THREAD_KEY = "thread"  # Notification.extra key of a thread reply


@dataclass(frozen=True)
class ThreadCommand:
    kind: CommandKind
    text: str  # the message without mentions; the question for `ask`
    argument: str = ""  # the X of `why not X?`, the approval id of `approve <id>`


def parse_thread_text(text: str) -> ThreadCommand:
    """What a thread message asks; a command only when the whole message is the command."""
    clean = " ".join(_MENTION.sub(" ", text).split()).strip()
    words = clean.rstrip(".!").split()
    if words and words[0].lower().lstrip("!") in _VERBS and len(words) <= 2:
        kind = _VERBS[words[0].lower().lstrip("!")]
        if kind in ("approve", "reject") or len(words) == 1:
            return ThreadCommand(kind, clean, words[1] if len(words) == 2 else "")
    why = _WHY_NOT.match(clean)
    if why:
        return ThreadCommand("why_not", clean, why.group(1).strip(" ?`'\""))
    return ThreadCommand("ask", clean)


@dataclass(frozen=True)
class ThreadRef:
    """Where a reply goes: the room (Slack channel / Matrix room id), the thread's root, the message answered."""

    room: str
    root: str  # Slack thread_ts / Matrix root event id
    answering: str  # Slack ts / Matrix event id of the question


def thread_reply(investigation_id: str, text: str, where: ThreadRef) -> Notification:
    """The reply as an outbox message; channels post it into the thread instead of as a new RCA."""
    return Notification(
        investigation_id=investigation_id,
        title="",
        tier="",
        summary=text,
        summary_source="rule",
        extra={THREAD_KEY: {"room": where.room, "root": where.root, "answering": where.answering}},
    )


def thread_of(notification: Notification) -> ThreadRef | None:
    raw = notification.extra.get(THREAD_KEY)
    if not isinstance(raw, dict):
        return None
    return ThreadRef(str(raw.get("room", "")), str(raw.get("root", "")), str(raw.get("answering", "")))
