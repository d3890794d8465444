from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from rootward.store.db import make_engine, make_session_factory
from rootward.store.outbox import OutboxRow


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    engine = make_engine(f"sqlite:///{tmp_path / 'outbox.db'}")
    OutboxRow.__table__.create(engine)  # type: ignore[attr-defined]
    return make_session_factory(engine)


class Receiver:
    """A local HTTP endpoint that can be 'down' (503) and records what it accepted."""

    def __init__(self) -> None:
        self.up = True
        self.received: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                if not receiver.up:
                    self.send_response(503)
                    self.end_headers()
                    return
                ctype = self.headers.get("content-type", "")
                if "json" in ctype:
                    body = json.loads(raw or b"{}")
                else:  # slack_sdk WebClient posts form-encoded or json; keep raw
                    from urllib.parse import parse_qs

                    body = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
                receiver.received.append({"path": self.path, "body": body})
                receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = json.dumps({"ok": True, "ts": f"{len(receiver.received)}.0001", "channel": "C1"}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()
