"""Approvals from a Matrix incident room: a command or a reaction.

`!approve <id>` / `!reject <id>` in the room, or a ✅ / ❌ reaction on the
message that carries the approval request (its content names the approval id
under `org.rootward.approval_id`). The sender's Matrix id maps to a rootward
user; `decide` enforces the approver role and audits every refusal. Only
events after the listener started are read, so restarting it never replays
old commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass

import nio
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.approvals import Decision, DecisionOutcome, decide
from rootward.notify.matrix import MatrixSettings
from rootward.store.users import user_by_chat_id

APPROVE_KEYS = ("✅", "✔️", "👍")
REJECT_KEYS = ("❌", "✖️", "👎")
APPROVAL_KEY = "org.rootward.approval_id"


@dataclass(frozen=True)
class MatrixVote:
    sender: str
    decision: str  # approve | reject
    approval_id: str


def parse_command(body: str) -> tuple[str, str] | None:
    words = body.strip().split()
    if len(words) == 2 and words[0] in ("!approve", "!reject"):
        return words[0][1:], words[1]
    return None


class MatrixApprovals:
    def __init__(self, settings: MatrixSettings, sessions: sessionmaker[Session]) -> None:
        self._settings = settings
        self._sessions = sessions
        self._since: str | None = None

    def _client(self) -> nio.AsyncClient:
        s = self._settings
        client = nio.AsyncClient(s.homeserver, s.user_id, device_id=s.device_id)
        client.access_token = s.access_token.get_secret_value()
        client.user_id = s.user_id
        return client

    async def _votes(self, client: nio.AsyncClient, events: Iterable[object]) -> list[MatrixVote]:
        votes = []
        for event in events:
            sender = getattr(event, "sender", "")
            if sender == self._settings.user_id:
                continue
            if isinstance(event, nio.RoomMessageText):
                command = parse_command(event.body)
                if command is not None:
                    votes.append(MatrixVote(sender, command[0], command[1]))
            elif isinstance(event, nio.ReactionEvent):
                decision = "approve" if event.key in APPROVE_KEYS else "reject" if event.key in REJECT_KEYS else None
                if decision is None:
                    continue
                target = await client.room_get_event(self._settings.room_id, event.reacts_to)
                if isinstance(target, nio.RoomGetEventResponse):
                    approval_id = target.event.source.get("content", {}).get(APPROVAL_KEY)
                    if approval_id:
                        votes.append(MatrixVote(sender, decision, str(approval_id)))
        return votes

    async def poll_once_async(self) -> list[tuple[MatrixVote, DecisionOutcome]]:
        client = self._client()
        room = self._settings.room_id
        try:
            response = await client.sync(
                timeout=0, since=self._since, sync_filter={"room": {"rooms": [room], "timeline": {"limit": 100}}}
            )
            if isinstance(response, nio.SyncError):
                return []
            first = self._since is None
            self._since = response.next_batch
            joined = response.rooms.join.get(room)
            if first or joined is None:
                return []
            results = []
            for vote in await self._votes(client, joined.timeline.events):
                with self._sessions() as session, session.begin():
                    user = user_by_chat_id(session, matrix=vote.sender)
                    verb: Decision = "approve" if vote.decision == "approve" else "reject"
                    outcome = decide(session, vote.approval_id, user, verb, via="matrix")
                results.append((vote, outcome))
                reply = f"{vote.approval_id}: {outcome.status}" if outcome.ok else f"refused: {outcome.reason}"
                await client.room_send(room, "m.room.message", {"msgtype": "m.notice", "body": reply})
            return results
        finally:
            await client.close()

    def poll_once(self) -> list[tuple[MatrixVote, DecisionOutcome]]:
        return asyncio.run(self.poll_once_async())

    def run(self, stop: threading.Event, poll_s: float = 2.0) -> None:
        while not stop.is_set():
            # A flaky homeserver must not kill the listener; the next poll retries.
            with contextlib.suppress(Exception):
                self.poll_once()
            stop.wait(poll_s)
