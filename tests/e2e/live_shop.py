"""A small HTTP service instrumented with prometheus_client, as a team would write one.

    python -m tests.e2e.live_shop --port 8001 [--downstream http://127.0.0.1:8002]

`GET /work` does a little work (and calls the downstream's `/work` when it has
one), counted in `http_requests_total{method,status}` and timed in
`http_request_duration_seconds`; `GET /metrics` is the Prometheus exposition
(with the client's default process metrics). `POST /fault` with
`{"latency_ms": 300}`, `{"error_ratio": 0.5}` or `{"cpu_burn": 0.7}` (the share
of one core a busy thread takes) injects a fault; `{}` clears it. No service label: Prometheus' `job` names it, as in
most setups.
"""

from __future__ import annotations

import argparse
import json
import random
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest

REQUESTS = Counter("http_requests_total", "HTTP requests served.", ["method", "status"])
LATENCY = Histogram(
    "http_request_duration_seconds",
    "Time to serve an HTTP request.",
    ["method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
FAULT: dict[str, Any] = {}
_BURNING = threading.Event()
BURN_SLICE_S = 0.05


def _burn() -> None:
    """Spin for the asked share of each slice, sleep the rest: a runaway loop in the process."""
    while True:
        _BURNING.wait()
        share = min(1.0, max(0.0, float(FAULT.get("cpu_burn") or 0)))
        deadline = time.monotonic() + BURN_SLICE_S * share
        while time.monotonic() < deadline:
            pass
        time.sleep(BURN_SLICE_S * (1 - share))


class Handler(BaseHTTPRequestHandler):
    downstream = ""

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        if self.path == "/metrics":
            self._send(200, generate_latest(), CONTENT_TYPE_LATEST)
            return
        if self.path != "/work":
            self._send(404, b"not found", "text/plain")
            return
        started = time.monotonic()
        status = self._work()
        LATENCY.labels("GET").observe(time.monotonic() - started)
        REQUESTS.labels("GET", str(status)).inc()
        self._send(status, b"ok" if status == 200 else b"failed", "text/plain")

    def do_POST(self) -> None:  # noqa: N802
        if self.path != "/fault":
            self._send(404, b"not found", "text/plain")
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        FAULT.clear()
        FAULT.update(json.loads(body or b"{}"))
        _BURNING.set() if FAULT.get("cpu_burn") else _BURNING.clear()
        self._send(200, json.dumps(FAULT).encode(), "application/json")

    def _work(self) -> int:
        time.sleep(random.uniform(0.002, 0.008) + float(FAULT.get("latency_ms", 0)) / 1000)
        if random.random() < float(FAULT.get("error_ratio", 0)):
            return 500
        if self.downstream:
            try:
                with urllib.request.urlopen(self.downstream + "/work", timeout=5) as reply:
                    reply.read()
            except OSError:
                return 502
        return 200

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--downstream", default="")
    args = parser.parse_args()
    Handler.downstream = args.downstream.rstrip("/")
    threading.Thread(target=_burn, daemon=True).start()
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
