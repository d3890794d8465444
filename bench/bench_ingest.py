"""Intake throughput: 10,000 alerts against a real `rootward serve` on SQLite.

The server runs as a subprocess with default settings except
`runtime.workers: 0` (an API-only replica): investigations of new groups are
queued in the same transaction as their alerts, but no worker runs them during
the measurement, so the number is intake's own. A second process is the
load generator: a small asyncio HTTP/1.1 client over keep-alive connections,
so the generator's own cost stays small next to the server's. Alerts arrive as
Alertmanager v4 payloads of `BATCH` alerts (Alertmanager groups alerts per
notification), over 50 services, 10% of them repeats of earlier alerts.

Reported: sustained alerts/s over the whole run, and p50/p99 latency of the
202 per request, in bench/results/ingest.json; also the server's CPU seconds
for the run (alerts per CPU second), which stays meaningful when other work
shares the machine and wall-clock numbers do not. A second, smaller run posts one
generic alert per request, to show the per-request floor.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TOKEN = "bench-token"
TOTAL_ALERTS = 10_000
BATCH = 20
CONCURRENCY = 6
SINGLE_ALERTS = 2_000
SERVICES = 50


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _alert(i: int, rng: random.Random) -> dict[str, Any]:
    n = rng.randrange(i) if i and rng.random() < 0.1 else i  # 10% repeats of an earlier alert
    service = f"svc-{n % SERVICES:02d}"
    severity = ("warning", "critical", "info", "warning")[n % 4]
    return {
        "status": "firing",
        "labels": {
            "alertname": ("HighErrorRate", "HighLatency", "PodRestarts", "DiskPressure")[n % 4],
            "service": service,
            "severity": severity,
            "instance": f"10.0.{n % 200}.{n % 250}:9100",
            "pod": f"{service}-{n:06d}",
        },
        "annotations": {"summary": f"{service} is unhappy", "log_excerpt": "ERROR upstream timeout"},
        "startsAt": "2026-03-01T12:00:00Z",
        "endsAt": "0001-01-01T00:00:00Z",
        "generatorURL": "http://prometheus:9090/graph",
    }


def _bodies(total: int, batch: int, generic: bool) -> list[bytes]:
    rng = random.Random(7)
    alerts = [_alert(i, rng) for i in range(total)]
    if generic:
        return [
            json.dumps(
                {
                    "name": a["labels"]["alertname"],
                    "service": a["labels"]["service"],
                    "severity": a["labels"]["severity"],
                    "labels": a["labels"],
                    "annotations": a["annotations"],
                }
            ).encode()
            for a in alerts
        ]
    return [
        json.dumps(
            {"version": "4", "status": "firing", "receiver": "rootward", "alerts": alerts[i : i + batch]}
        ).encode()
        for i in range(0, total, batch)
    ]


async def _connection(port: int, path: str, queue: asyncio.Queue[bytes | None], latencies: list[float]) -> int:
    """One keep-alive connection posting bodies until the queue is drained; returns non-202 count."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    failures = 0
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
        "Content-Type: application/json\r\nContent-Length: "
    ).encode()
    while True:
        body = queue.get_nowait() if not queue.empty() else None
        if body is None:
            break
        started = time.perf_counter()
        writer.write(head + str(len(body)).encode() + b"\r\n\r\n" + body)
        status_line = await reader.readline()
        length = 0
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        await reader.readexactly(length)
        latencies.append(time.perf_counter() - started)
        if b" 202 " not in status_line:
            failures += 1
    writer.close()
    return failures


async def _load(port: int, path: str, bodies: list[bytes], concurrency: int) -> dict[str, Any]:
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()
    for b in bodies:
        queue.put_nowait(b)
    latencies: list[float] = []
    started = time.perf_counter()
    failures = await asyncio.gather(*(_connection(port, path, queue, latencies) for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "requests": len(latencies),
        "failed_requests": sum(failures),
        "seconds": round(elapsed, 3),
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 2),
        "max_ms": round(latencies[-1] * 1000, 2),
    }


def load_generator(port: int, mode: str) -> None:
    """Entry point of the load-generator process: prints one JSON line."""
    generic = mode == "generic"
    total = SINGLE_ALERTS if generic else TOTAL_ALERTS
    bodies = _bodies(total, 1 if generic else BATCH, generic)
    path = "/api/v1/alerts" if generic else "/api/v1/alerts/alertmanager"
    result = asyncio.run(_load(port, path, bodies, CONCURRENCY))
    result.update(alerts=total, alerts_per_request=1 if generic else BATCH, concurrency=CONCURRENCY)
    result["alerts_per_s"] = round(total / result["seconds"], 1)
    print(json.dumps(result), flush=True)


def _run_load(port: int, mode: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", f"from bench.bench_ingest import load_generator; load_generator({port}, {mode!r})"],
        cwd=HERE.parent,
        capture_output=True,
        text=True,
        timeout=150,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), to report cost independent of machine load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_healthy(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    import httpx

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"rootward serve exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError("rootward serve did not come up within 120 s")


def _count(url: str, table: str) -> int:
    from sqlalchemy import text

    from rootward.store.db import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() or 0)
    finally:
        engine.dispose()


def main() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rootward-bench-") as tmp:
        db_url = f"sqlite:///{tmp}/rootward.db"
        env = {
            **os.environ,
            "ROOTWARD_DATA_DIR": tmp,
            "ROOTWARD_DATABASE_URL": db_url,
            "ROOTWARD_INTAKE__TOKEN": TOKEN,
            "ROOTWARD_SERVER__LOG_LEVEL": "warning",
            "ROOTWARD_RUNTIME__WORKERS": "0",
        }
        env.pop("ROOTWARD_CONFIG", None)
        port = _free_port()
        log = Path(tmp) / "serve.log"
        with log.open("wb") as log_file:
            proc = subprocess.Popen(
                [sys.executable, "-c", "from rootward.cli import main; main()", "serve", "--port", str(port)],
                env=env,
                cwd=tmp,
                stdout=log_file,
                stderr=subprocess.STDOUT,
            )
            try:
                _wait_healthy(port, proc, log)
                cpu0 = _cpu_seconds(proc.pid)
                batched = _run_load(port, "alertmanager")
                cpu1 = _cpu_seconds(proc.pid)
                single = _run_load(port, "generic")
                cpu2 = _cpu_seconds(proc.pid)
                batched["server_cpu_s"] = round(cpu1 - cpu0, 2)
                batched["alerts_per_server_cpu_s"] = round(batched["alerts"] / max(cpu1 - cpu0, 1e-6), 1)
                single["server_cpu_s"] = round(cpu2 - cpu1, 2)
                single["alerts_per_server_cpu_s"] = round(single["alerts"] / max(cpu2 - cpu1, 1e-6), 1)
            finally:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        result = {
            "backend": "sqlite",
            "server": "rootward serve, runtime.workers=0 (investigations queued, not run)",
            "cpu_count": os.cpu_count(),
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "alerts": batched["alerts"],
            "alerts_per_s": batched["alerts_per_s"],
            "p50_ms": batched["p50_ms"],
            "p99_ms": batched["p99_ms"],
            "alerts_per_server_cpu_s": batched["alerts_per_server_cpu_s"],
            "target": {"alerts_per_s": 5000, "p99_ms": 50},
            "alertmanager_batches": batched,
            "single_alert_requests": single,
            "stored_alerts": _count(db_url, "alerts"),
            "stored_groups": _count(db_url, "alert_groups"),
            "queued_investigations": _count(db_url, "investigation_jobs"),
        }
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "ingest.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
