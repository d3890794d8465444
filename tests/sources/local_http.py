"""A tiny threaded HTTP server on 127.0.0.1 that answers from a route function.

The fake Loki, Kubernetes and GitHub servers of these tests are route
functions over it; the connectors reach them through their real clients.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes = b""

    def arg(self, name: str, default: str = "") -> str:
        return self.query.get(name, [default])[0]


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # JSON-encoded unless bytes/str
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # before answering
    drip_s: float = 0.0  # between single bytes of the body: never trips a per-read timeout


Route = Callable[[Request], Reply]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve(route: Route, port: int = 0) -> Iterator[tuple[str, list[Request]]]:
    """Run `route` on a free port (or `port`); yields (base URL, list of requests seen)."""
    seen: list[Request] = []

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            request = Request(
                self.command,
                parts.path,
                parse_qs(parts.query),
                {k.lower(): v for k, v in self.headers.items()},
                self.rfile.read(length) if length else b"",
            )
            seen.append(request)
            reply = route(request)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            if isinstance(reply.body, bytes):
                payload = reply.body
            elif isinstance(reply.body, str):
                payload = reply.body.encode()
            else:
                payload = json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.headers.get("Content-Type", "application/json"))
                for key, value in reply.headers.items():
                    if key != "Content-Type":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if reply.drip_s:
                    for index in range(len(payload)):
                        self.wfile.write(payload[index : index + 1])
                        self.wfile.flush()
                        time.sleep(reply.drip_s)
                else:
                    self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_GET = _handle
        do_POST = _handle
        do_PATCH = _handle
        do_PUT = _handle
        do_DELETE = _handle

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
