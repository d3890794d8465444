"""`GET /healthz` (the process answers) and `GET /readyz` (database writable, workers beating).

`/readyz` commits one small write (store/readiness.py): a database that
answers reads but refuses every write (read-only, disk full, a standby) can
store no alert, so the replica must leave the load balancer. Neither probe
ever calls an LLM or a data source: a readiness probe must not fail because a
dependency of investigations is slow.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from rootward.runtime.queue import live_workers
from rootward.settings import Settings
from rootward.store.readiness import record_probe
from rootward.web.intake import json_response

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> Response:
    return json_response(200, {"status": "ok"})


def readiness(settings: Settings, sessions: sessionmaker[Session]) -> tuple[bool, dict[str, Any]]:
    """Database round trip, a committed write, then live worker heartbeats when this process runs workers."""
    checks: dict[str, Any] = {}
    try:
        with sessions() as session:
            session.execute(text("SELECT 1"))
            workers = len(live_workers(session, 3 * settings.runtime.heartbeat_s))
    except Exception as exc:
        checks["database"] = f"unreachable: {type(exc).__name__}"
        return False, checks
    try:
        with sessions() as session, session.begin():
            record_probe(session)
    except Exception as exc:
        checks["database"] = f"not writable: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        return False, checks
    checks["database"] = "ok"
    checks["workers"] = workers
    ready = not (settings.runtime.workers > 0 and workers == 0)
    return ready, checks


@router.get("/readyz")
async def readyz(request: Request) -> Response:
    ready, checks = await asyncio.to_thread(readiness, request.app.state.settings, request.app.state.sessions)
    return json_response(200 if ready else 503, {"status": "ready" if ready else "not ready", "checks": checks})
