"""A local stand-in for Slack's Socket Mode websocket, speaking its protocol over a real websocket (aiohttp).

Each connection is greeted with `hello`; `send_event` pushes an `events_api`
envelope (the Events API payload inside, `retry_attempt` as Slack counts it)
to the newest connection and `ack_of` waits for the client's
`{"envelope_id": ...}` acknowledgement, timing it from the send. `disconnect`
sends Slack's `disconnect` message (`refresh_requested`), after which a
well-behaved client opens a new connection through `apps.connections.open`.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.sources.local_http import free_port


@dataclass
class SocketModeServer:
    url: str = ""
    connections: int = 0
    acks: dict[str, float] = field(default_factory=dict)  # envelope id -> seconds from send to ack
    _sent: dict[str, float] = field(default_factory=dict)
    _sockets: list[web.WebSocketResponse] = field(default_factory=list)
    _loop: asyncio.AbstractEventLoop | None = None
    _cond: threading.Condition = field(default_factory=threading.Condition)

    async def handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        with self._cond:
            self.connections += 1
            self._sockets.append(ws)
            self._cond.notify_all()
        await ws.send_str(
            json.dumps(
                {
                    "type": "hello",
                    "num_connections": 1,
                    "debug_info": {"host": "applink-fake", "approximate_connection_time": 18060},
                    "connection_info": {"app_id": "A1"},
                }
            )
        )
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            envelope = json.loads(message.data).get("envelope_id")
            with self._cond:
                if envelope in self._sent and envelope not in self.acks:
                    self.acks[envelope] = time.monotonic() - self._sent[envelope]
                    self._cond.notify_all()
        with self._cond:
            self._sockets.remove(ws)
        return ws

    def _send(self, message: dict[str, Any]) -> None:
        with self._cond:
            ws = self._sockets[-1]
        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(ws.send_str(json.dumps(message)), self._loop).result(timeout=5)

    def wait_connections(self, count: int, timeout_s: float = 20) -> None:
        with self._cond:
            ok = self._cond.wait_for(lambda: self.connections >= count and self._sockets, timeout_s)
        assert ok, f"{self.connections} websocket connection(s), expected {count}"

    def send_event(self, payload: dict[str, Any], *, retry_attempt: int = 0, kind: str = "events_api") -> str:
        """Send one envelope (`kind` events_api, or interactive for a button click); returns its envelope id."""
        envelope_id = str(uuid.uuid4())
        with self._cond:
            self._sent[envelope_id] = time.monotonic()
        self._send(
            {
                "envelope_id": envelope_id,
                "payload": payload,
                "type": kind,
                "accepts_response_payload": False,
                "retry_attempt": retry_attempt,
                "retry_reason": "timeout" if retry_attempt else "",
            }
        )
        return envelope_id

    def ack_of(self, envelope_id: str, timeout_s: float = 10) -> float:
        with self._cond:
            ok = self._cond.wait_for(lambda: envelope_id in self.acks, timeout_s)
        assert ok, f"envelope {envelope_id} was never acknowledged"
        return self.acks[envelope_id]

    def disconnect(self) -> None:
        self._send({"type": "disconnect", "reason": "refresh_requested", "debug_info": {"host": "applink-fake"}})


@contextmanager
def socket_mode_server() -> Iterator[SocketModeServer]:
    server = SocketModeServer()
    port = free_port()
    loop = asyncio.new_event_loop()
    server._loop = loop
    app = web.Application()
    app.router.add_get("/link/", server.handler)
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", port).start())
    thread = threading.Thread(target=loop.run_forever, name="fake-socket-mode", daemon=True)
    thread.start()
    server.url = f"ws://127.0.0.1:{port}/link/?ticket=fake-ticket&app_id=A1"
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()
