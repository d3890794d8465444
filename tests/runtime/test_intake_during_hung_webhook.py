"""Issue 14, defect 4: a webhook receiver that accepts and never answers must not stall intake (SQLite).

The outbox used to call the channel inside its transaction, which on SQLite
holds the one write lock: every alert POST waited for the webhook's timeout.
Here a real TCP server accepts the outbox's connection and stays silent while
alerts are posted; intake must keep answering fast, and the message must
still be delivered once the receiver answers.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from rootward.notify.dispatch import start_background
from rootward.notify.message import Notification
from rootward.notify.outbox import enqueue
from rootward.settings import load_settings
from rootward.store.outbox import OutboxRow
from rootward.web.app import create_app

WEBHOOK_TIMEOUT_S = 5.0
POSTS = 40


class SilentReceiver:
    """Accepts every connection; answers 200 only once `answering` is set, otherwise never."""

    def __init__(self) -> None:
        self.answering = threading.Event()
        self.accepted = threading.Event()
        self.answered = 0
        self._held: list[socket.socket] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}/hook"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            self.accepted.set()
            if not self.answering.is_set():
                self._held.append(conn)  # keep it open, say nothing
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            headers = dict(line.split(b":", 1) for line in head.split(b"\r\n")[1:] if b":" in line)
            length = int({k.strip().lower(): v for k, v in headers.items()}.get(b"content-length", b"0"))
            while len(body) < length:
                body += conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nx-request-id: got-it\r\nconnection: close\r\n\r\n")
            self.answered += 1

    def close(self) -> None:
        self._server.close()
        for conn in self._held:
            conn.close()


@pytest.fixture
def receiver() -> Iterator[SilentReceiver]:
    r = SilentReceiver()
    yield r
    r.close()


def test_intake_answers_fast_while_the_webhook_hangs_and_the_message_is_delivered_later(
    sqlite_migrated_url: str, tmp_path: Path, receiver: SilentReceiver
) -> None:
    settings = load_settings(
        data_dir=tmp_path,
        database={"url": sqlite_migrated_url},
        intake={"auth": "none"},
        runtime={"workers": 0},
        notify={
            "poll_s": 0.1,
            "webhooks": [{"name": "pager", "url": receiver.url, "secret": "s", "timeout_s": WEBHOOK_TIMEOUT_S}],
        },
    )
    stop = threading.Event()
    with TestClient(create_app(settings)) as client:
        sessions = client.app.state.sessions  # type: ignore[attr-defined]
        with sessions() as s, s.begin():
            note = Notification(investigation_id="inv-1", title="t", tier="L2", summary="s", summary_source="rule")
            enqueue(s, note, ["pager"], key="inv-1")
        threads = start_background(settings.notify, sessions, stop)
        try:
            assert receiver.accepted.wait(5), "the outbox never called the webhook"
            hung_at = time.monotonic()
            latencies = []
            for i in range(POSTS):
                started = time.monotonic()
                response = client.post("/api/v1/alerts", json={"name": "HighErrorRate", "service": f"svc{i}"})
                latencies.append(time.monotonic() - started)
                assert response.status_code == 202
            # Every POST ran while the webhook call was still hanging.
            assert time.monotonic() - hung_at < WEBHOOK_TIMEOUT_S
            p99 = sorted(latencies)[int(0.99 * (POSTS - 1))]
            assert p99 < 1.0, f"intake p99 {p99:.2f} s while the webhook hangs"

            receiver.answering.set()
            deadline = time.monotonic() + 3 * WEBHOOK_TIMEOUT_S
            row = None
            while time.monotonic() < deadline:
                with sessions() as s:
                    row = s.scalars(select(OutboxRow)).one()
                if row.status == "delivered":
                    break
                time.sleep(0.1)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=WEBHOOK_TIMEOUT_S + 2)
    assert row is not None and (row.status, row.receipt) == ("delivered", "got-it")
    assert row.attempts >= 2 and receiver.answered == 1
