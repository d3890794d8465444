"""Thread Q&A in the Matrix incident room, through matrix-nio: replies to an RCA message are questions.

A message whose `m.relates_to` puts it in the thread of an RCA message
(`rel_type: m.thread`), or replies to one (`m.in_reply_to`), is handed to
`chat/threads.handle`; which investigation the root is comes from the
outbox receipt of that RCA (its event id). The reply goes out through the
outbox as an `m.thread` notice. `!approve` / `!reject` are left to the
approval listener (`actions/matrix_approvals.py`). Only events after the
listener started are read, so a restart never answers old questions; an
event read twice is answered once (its event id is the reply's key).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterable
from typing import Any

import nio
from sqlalchemy.orm import Session, sessionmaker

from rootward.chat.threads import Outcome, ThreadMessage, handle
from rootward.llm.settings import LLMSettings
from rootward.notify.matrix import MatrixSettings
from rootward.notify.threads import ThreadRef


def thread_root(content: dict[str, Any]) -> str | None:
    """The event a message's relation points at: its thread's root, or the message it replies to."""
    relation = content.get("m.relates_to")
    if not isinstance(relation, dict):
        return None
    if relation.get("rel_type") == "m.thread" and isinstance(relation.get("event_id"), str):
        return str(relation["event_id"])
    reply = relation.get("m.in_reply_to")
    if isinstance(reply, dict) and isinstance(reply.get("event_id"), str):
        return str(reply["event_id"])
    return None


def question_text(body: str) -> str:
    """The body without a reply fallback (the quoted `> ` lines clients prepend to replies)."""
    return "\n".join(line for line in body.splitlines() if not line.startswith("> ")).strip()


def thread_messages(room: str, bot: str, events: Iterable[object]) -> list[ThreadMessage]:
    out = []
    for event in events:
        if not isinstance(event, nio.RoomMessageText) or event.sender == bot:
            continue
        content = event.source.get("content", {})
        root = thread_root(content) if isinstance(content, dict) else None
        text = question_text(event.body)
        if root is None or not text or text.split()[0] in ("!approve", "!reject"):
            continue
        out.append(ThreadMessage("matrix", event.event_id, event.sender, text, ThreadRef(room, root, event.event_id)))
    return out


class MatrixThreads:
    def __init__(
        self, settings: MatrixSettings, sessions: sessionmaker[Session], *, llm: LLMSettings | None = None
    ) -> None:
        """`llm`: the model questions are answered with (None or `provider: none`: rule mode)."""
        self._settings = settings
        self._sessions = sessions
        self._llm = llm
        self._since: str | None = None

    def _client(self) -> nio.AsyncClient:
        s = self._settings
        client = nio.AsyncClient(s.homeserver, s.user_id, device_id=s.device_id)
        client.access_token = s.access_token.get_secret_value()
        client.user_id = s.user_id
        return client

    async def poll_once_async(self) -> list[tuple[ThreadMessage, Outcome]]:
        client = self._client()
        room = self._settings.room_id
        try:
            response = await client.sync(
                timeout=0, since=self._since, sync_filter={"room": {"rooms": [room], "timeline": {"limit": 100}}}
            )
        finally:
            await client.close()
        if isinstance(response, nio.SyncError):
            return []
        first = self._since is None
        self._since = response.next_batch
        joined = response.rooms.join.get(room)
        if first or joined is None:
            return []
        messages = thread_messages(room, self._settings.user_id, joined.timeline.events)
        return [(m, handle(self._sessions, m, llm=self._llm)) for m in messages]

    def poll_once(self) -> list[tuple[ThreadMessage, Outcome]]:
        return asyncio.run(self.poll_once_async())

    def run(self, stop: threading.Event, poll_s: float = 2.0) -> None:
        while not stop.is_set():
            # A flaky homeserver must not kill the listener; the next poll retries.
            with contextlib.suppress(Exception):
                self.poll_once()
            stop.wait(poll_s)
