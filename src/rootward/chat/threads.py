"""A question in an incident's thread, from any chat: find the incident, answer once, queue the reply.

The reply's outbox key is the chat event's id, checked and written in the
same transaction as the command's effect: a retried or replayed event finds
the key and changes nothing, and two deliveries of one event racing each
other cannot both commit (the outbox's unique key refuses the second).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from rootward.chat.conversation import may, respond
from rootward.engine.followup import Answer
from rootward.engine.followup_answer import answer_followup
from rootward.engine.followup_context import context_of
from rootward.engine.followup_llm import SYSTEM_PROMPT
from rootward.llm.settings import LLMSettings
from rootward.llm.trial_runs import active_variant
from rootward.notify.outbox import enqueue
from rootward.notify.threads import ThreadCommand, ThreadRef, parse_thread_text, thread_reply
from rootward.runtime.llm_charging import charged_llm_client
from rootward.store.investigations import InvestigationRow
from rootward.store.outbox import OutboxRow
from rootward.store.users import user_by_chat_id

Chat = Literal["slack", "matrix"]
Outcome = Literal["answered", "duplicate", "not_an_incident_thread"]


@dataclass(frozen=True)
class ThreadMessage:
    chat: Chat
    event_id: str  # the chat's own id of the event (Slack event_id, Matrix event id)
    sender: str  # Slack user id / Matrix user id
    text: str
    where: ThreadRef


def reply_key(message: ThreadMessage) -> str:
    return f"{message.chat}-event:{message.event_id}"


def investigation_of_post(session: Session, chat: Chat, receipt: str) -> str | None:
    """The investigation whose RCA post the chat acknowledged with `receipt` (Slack ts / Matrix event id)."""
    return session.scalars(
        select(OutboxRow.investigation_id)
        .where(OutboxRow.channel == chat, OutboxRow.receipt == receipt, OutboxRow.key.startswith("investigation:"))
        .limit(1)
    ).first()


def _seen(session: Session, chat: Chat, key: str) -> bool:
    count = session.scalar(
        select(func.count()).select_from(OutboxRow).where(OutboxRow.channel == chat, OutboxRow.key == key)
    )
    return bool(count)


def _identity(message: ThreadMessage) -> dict[str, str]:
    return {"slack": message.sender} if message.chat == "slack" else {"matrix": message.sender}


def _answer_first(
    sessions: sessionmaker[Session],
    message: ThreadMessage,
    command: ThreadCommand,
    investigation_id: str | None,
    llm: LLMSettings | None,
) -> Answer | None:
    """A question's answer, worked out before (and outside) the transaction that writes the reply: reading the
    incident's data and asking the model must not hold the database's write lock. None when there is nothing
    to answer: not a question, not an incident's thread, an event already answered, a sender who may not ask
    (none of which costs a model call)."""
    if command.kind != "ask":
        return None
    with sessions() as session:
        if _seen(session, message.chat, reply_key(message)):
            return None
        found = investigation_id or investigation_of_post(session, message.chat, message.where.root)
        row = session.get(InvestigationRow, found) if found else None
        if row is None or not may(user_by_chat_id(session, **_identity(message)), "ask"):
            return None
        variant = active_variant(session, SYSTEM_PROMPT) if llm is not None else "control"
        session.expunge(row)
    client = charged_llm_client(llm, sessions, lambda: (row.id, row.service)) if llm is not None else None
    context = context_of(row.bundle_path)
    return answer_followup(
        row.investigation, command.text, context, client=client, severity=row.severity, variant=variant
    )


def handle(
    sessions: sessionmaker[Session],
    message: ThreadMessage,
    investigation_id: str | None = None,
    *,
    llm: LLMSettings | None = None,
) -> Outcome:
    """Answer `message` (its incident found from the thread root unless given) and queue the reply.

    `llm`: the model settings a question is answered with (`llm.provider: none` or None: rule mode);
    the answer is worked out before the transaction that writes the reply, so no write lock waits on it."""
    key = reply_key(message)
    command = parse_thread_text(message.text)
    answered = _answer_first(sessions, message, command, investigation_id, llm)
    try:
        with sessions() as session, session.begin():
            if _seen(session, message.chat, key):
                return "duplicate"
            found = investigation_id or investigation_of_post(session, message.chat, message.where.root)
            row = session.get(InvestigationRow, found) if found else None
            if row is None:
                return "not_an_incident_thread"
            user = user_by_chat_id(session, **_identity(message))
            text = respond(session, row, user, command, via=message.chat, sender=message.sender, answered=answered)
            enqueue(session, thread_reply(row.id, text, message.where), [message.chat], key=key)
    except IntegrityError:
        return "duplicate"  # the same event, handled at the same moment by another request or replica
    return "answered"
