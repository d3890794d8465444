"""A local stand-in for Slack: its Web API for rootward's `slack_sdk` client, and signed Events API deliveries.

`FakeSlack` answers `chat.postMessage` and `auth.test` as Slack does (form or
JSON bodies, `ok`/`ts`/`channel`), records every post, and can be made slow;
with `socket_url` set it answers `apps.connections.open` (app-level token
`xapp-test` only) with that websocket URL, as Socket Mode needs.
`deliver` signs an Events API payload with the signing secret exactly as
Slack does (`v0:<timestamp>:<body>`, HMAC-SHA256) and posts it to rootward.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import httpx

from tests.sources.local_http import Reply, Request, serve

BOT_USER = "UROOTWARD"
APP_TOKEN = "xapp-test"
CHANNEL = "C0INCIDENT"


@dataclass
class FakeSlack:
    url: str = ""
    posts: list[dict[str, Any]] = field(default_factory=list)
    delay_s: float = 0.0
    socket_url: str = ""  # what apps.connections.open answers
    connections_opened: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _next: int = 0

    def _open_connection(self, request: Request) -> Reply:
        if request.headers.get("authorization", "") != f"Bearer {APP_TOKEN}":
            return Reply(body={"ok": False, "error": "invalid_auth"})
        if not self.socket_url:
            return Reply(body={"ok": False, "error": "not_allowed_token_type"})
        with self._lock:
            self.connections_opened += 1
        return Reply(body={"ok": True, "url": self.socket_url})

    def route(self, request: Request) -> Reply:
        if request.path.endswith("/apps.connections.open"):
            return self._open_connection(request)
        if request.path.endswith("/auth.test"):
            return Reply(body={"ok": True, "user_id": BOT_USER, "team_id": "T1"})
        if not request.path.endswith("/chat.postMessage"):
            return Reply(body={"ok": False, "error": "unknown_method"})
        if "json" in request.headers.get("content-type", ""):
            body = json.loads(request.body or b"{}")
        else:
            body = {k: v[0] for k, v in parse_qs(request.body.decode()).items()}
        if request.headers.get("authorization", "") != "Bearer xoxb-test":
            return Reply(body={"ok": False, "error": "invalid_auth"})
        with self._lock:
            self._next += 1
            ts = f"{1780000000 + self._next}.{self._next:06d}"
            self.posts.append({**body, "ts": ts})
        return Reply(body={"ok": True, "channel": body.get("channel", CHANNEL), "ts": ts}, delay_s=self.delay_s)

    def thread_replies(self, thread_ts: str) -> list[dict[str, Any]]:
        return [p for p in self.posts if p.get("thread_ts") == thread_ts]

    def wait_for(self, check: Any, timeout_s: float = 20) -> Any:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            value = check()
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError("timed out waiting on the fake Slack")


@contextmanager
def fake_slack() -> Iterator[FakeSlack]:
    slack = FakeSlack()
    with serve(slack.route) as (url, _seen):
        slack.url = url + "/api/"
        yield slack


def sign(secret: str, body: bytes, timestamp: int) -> str:
    base = f"v0:{timestamp}:".encode() + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def signed_headers(
    secret: str, body: bytes, *, timestamp: int | None = None, retry: int | None = None
) -> dict[str, str]:
    ts = int(time.time()) if timestamp is None else timestamp
    headers = {
        "content-type": "application/json",
        "x-slack-request-timestamp": str(ts),
        "x-slack-signature": sign(secret, body, ts),
    }
    if retry is not None:
        headers |= {"x-slack-retry-num": str(retry), "x-slack-retry-reason": "http_timeout"}
    return headers


def thread_event(
    event_id: str, text: str, thread_ts: str, *, user: str, kind: str = "app_mention", ts: str | None = None
) -> dict[str, Any]:
    """An Events API `event_callback` as Slack sends it for a mention or a reply in a thread."""
    text = f"<@{BOT_USER}> {text}" if kind == "app_mention" else text
    return {
        "token": "legacy-verification-token",
        "team_id": "T1",
        "api_app_id": "A1",
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [{"team_id": "T1", "user_id": BOT_USER, "is_bot": True}],
        "event": {
            "type": kind,
            "user": user,
            "text": text,
            "ts": ts or f"{time.time():.6f}",
            "thread_ts": thread_ts,
            "channel": CHANNEL,
            "event_ts": ts or f"{time.time():.6f}",
        },
    }


def deliver(url: str, secret: str, payload: dict[str, Any], *, retry: int | None = None) -> httpx.Response:
    body = json.dumps(payload).encode()
    return httpx.post(url, content=body, headers=signed_headers(secret, body, retry=retry), timeout=30)
