"""`rootward serve` as a real process: intake over HTTP on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from rootward.store.alerts import AlertGroupRow, AlertRow
from rootward.store.audit import verify_chain
from rootward.store.db import make_engine, make_session_factory
from rootward.store.jobs import Job

pytestmark = [pytest.mark.integration, pytest.mark.e2e]
TOKEN = "process-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(migrated_db_url: str, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "ROOTWARD_DATA_DIR": str(tmp_path),
        "ROOTWARD_DATABASE_URL": migrated_db_url,
        "ROOTWARD_INTAKE__TOKEN": TOKEN,
        "ROOTWARD_RUNTIME__WORKERS": "0",  # intake only: investigations queue, none run here
        "ROOTWARD_SERVER__LOG_LEVEL": "warning",
    }
    env.pop("ROOTWARD_CONFIG", None)
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from rootward.cli import main; main()",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120  # imports alone take 10+ s on a loaded 2-core box
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"serve exited: {(tmp_path / 'serve.log').read_text()}")
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("serve did not come up in 120 s")
            time.sleep(0.2)
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def am_payload(fingerprint: str) -> dict[str, object]:
    return {
        "version": "4",
        "status": "firing",
        "receiver": "rootward",
        "alerts": [
            {
                "status": "firing",
                "labels": {"alertname": "ServiceDown", "service": "cart", "severity": "critical"},
                "annotations": {},
                "startsAt": "2026-03-01T11:58:00Z",
                "fingerprint": fingerprint,
            }
        ],
    }


async def post_all(url: str, bodies: list[object], path: str, concurrency: int = 16) -> list[int]:
    limit = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10) as client:

        async def one(body: object) -> int:
            async with limit:
                return (await client.post(path, json=body)).status_code

        return list(await asyncio.gather(*(one(b) for b in bodies)))


def test_serve_dedups_groups_and_queues_over_real_http(server: str, migrated_db_url: str) -> None:
    twice = asyncio.run(post_all(server, [am_payload("same")] * 2, "/api/v1/alerts/alertmanager", concurrency=1))
    assert twice == [202, 202]

    alerts = [
        {"name": f"Alert{i % 5}", "service": f"svc{i % 7}", "severity": "critical", "labels": {"n": str(i)}}
        for i in range(200)
    ]
    started = time.monotonic()
    statuses = asyncio.run(post_all(server, list(alerts), "/api/v1/alerts"))
    elapsed = time.monotonic() - started
    assert statuses == [202] * 200
    # Well inside the 5 minute group window even on a loaded machine (about 1 s when idle).
    assert elapsed <= 30, f"200 alerts took {elapsed:.1f} s"

    ready = httpx.get(f"{server}/readyz", timeout=5)
    assert ready.status_code == 200, ready.text

    engine = make_engine(migrated_db_url)
    try:
        with make_session_factory(engine)() as s:
            cart = s.scalar(select(func.count()).select_from(AlertRow).where(AlertRow.service == "cart"))
            cart_groups = s.scalar(
                select(func.count()).select_from(AlertGroupRow).where(AlertGroupRow.service == "cart")
            )
            svc_groups = s.scalar(
                select(func.count()).select_from(AlertGroupRow).where(AlertGroupRow.service.like("svc%"))
            )
            jobs = s.scalar(select(func.count()).select_from(Job))
            stored = s.scalar(select(func.count()).select_from(AlertRow))
            assert verify_chain(s).ok
    finally:
        engine.dispose()
    assert (cart, cart_groups) == (1, 1)
    assert stored == 201
    assert svc_groups == 7
    assert jobs is not None and jobs <= 8  # at most one per group: 7 services + cart
