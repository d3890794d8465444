"""Slack interactive approvals: verify the request, then read who clicked what.

Verification uses `slack_sdk`'s signature verifier (HMAC of
`v0:<timestamp>:<body>` with the signing secret; requests older than five
minutes are stale). A signature seen before is a replay and is refused even
inside the five minutes; the approval's own compare-and-set refuses a second
decision on top of that. Which signatures were seen is a `ReplayCache`: the
API keeps them in the database (`DbReplayCache`), so a replay is refused
after a restart and by every replica; `MemoryReplayCache` is for one process.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal, Protocol
from urllib.parse import parse_qs

from slack_sdk.signature import Clock, SignatureVerifier
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.approvals import decide
from rootward.store.audit_refusals import RefusalThrottle
from rootward.store.slack_replays import first_sighting
from rootward.store.users import user_by_chat_id

STALE_AFTER_S = 300


class ReplayCache(Protocol):
    def first_sighting(self, signature: str, at: float) -> bool:
        """Remember the signature; False if it was seen in the last STALE_AFTER_S seconds."""
        ...


class MemoryReplayCache:
    """Signatures seen by this process, oldest forgotten first (bounded)."""

    def __init__(self, remember: int = 10_000) -> None:
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._remember = remember
        self._lock = threading.Lock()

    def first_sighting(self, signature: str, at: float) -> bool:
        with self._lock:
            cutoff = at - STALE_AFTER_S
            while self._seen and next(iter(self._seen.values())) < cutoff:
                self._seen.popitem(last=False)
            if signature in self._seen:
                return False
            self._seen[signature] = at
            if len(self._seen) > self._remember:
                self._seen.popitem(last=False)
            return True


class DbReplayCache:
    """Signatures seen by any replica, in the `slack_replays` table (store/slack_replays.py)."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def first_sighting(self, signature: str, at: float) -> bool:
        with self._sessions() as session, session.begin():
            moment = datetime.fromtimestamp(at, UTC)
            return first_sighting(session, signature, moment, timedelta(seconds=STALE_AFTER_S))


class _Clock(Clock):
    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now

    def now(self) -> float:
        return self._now()


@dataclass(frozen=True)
class SlackClick:
    slack_user_id: str
    decision: Literal["approve", "reject"]
    approval_id: str


class SlackRequestRefused(Exception):
    """Unsigned, badly signed, stale, replayed or malformed; the message says which."""


class SlackVerifier:
    def __init__(
        self, signing_secret: str, *, now: Callable[[], float] = time.time, seen: ReplayCache | None = None
    ) -> None:
        self._now = now
        self._verifier = SignatureVerifier(signing_secret, clock=_Clock(now))
        self._seen: ReplayCache = seen if seen is not None else MemoryReplayCache()

    def verify(self, body: bytes, timestamp: str | None, signature: str | None) -> None:
        if not timestamp or not signature:
            raise SlackRequestRefused("unsigned request: X-Slack-Signature and X-Slack-Request-Timestamp are required")
        try:
            age = abs(self._now() - int(timestamp))
        except ValueError:
            raise SlackRequestRefused("malformed X-Slack-Request-Timestamp") from None
        if age > STALE_AFTER_S:
            raise SlackRequestRefused(f"stale request: signed {int(age)} s ago (limit {STALE_AFTER_S} s)")
        if not self._verifier.is_valid(body, timestamp, signature):
            raise SlackRequestRefused("bad signature")
        if not self._seen.first_sighting(signature, self._now()):
            raise SlackRequestRefused("replayed request")


def parse_click(body: bytes) -> SlackClick:
    """The approve/reject button of a block_actions payload (form field `payload`)."""
    try:
        payload = json.loads(parse_qs(body.decode())["payload"][0])
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise SlackRequestRefused(f"malformed interaction payload: {exc.__class__.__name__}") from None
    return click_of_payload(payload)


def click_of_payload(payload: object) -> SlackClick:
    """The button of a decoded block_actions payload: the HTTP callback's form field, or a Socket Mode envelope's."""
    try:
        user = str(payload["user"]["id"])  # type: ignore[index]
        action = payload["actions"][0]  # type: ignore[index]
        action_id, value = str(action["action_id"]), str(action["value"])
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise SlackRequestRefused(f"malformed interaction payload: {exc.__class__.__name__}") from None
    if action_id not in ("approve", "reject"):
        raise SlackRequestRefused(f"unknown action {action_id!r}")
    return SlackClick(user, "approve" if action_id == "approve" else "reject", value)


def decide_click(session: Session, click: SlackClick, *, refusals: RefusalThrottle | None = None) -> str:
    """Record the click as the Slack user's decision (their rootward user by chat id); the reply to show them."""
    user = user_by_chat_id(session, slack=click.slack_user_id)
    outcome = decide(
        session, click.approval_id, user, click.decision, via="slack", refusals=refusals, source=click.slack_user_id
    )
    return f"{outcome.status} by <@{click.slack_user_id}>" if outcome.ok else f"refused: {outcome.reason}"
