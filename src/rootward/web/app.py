"""The HTTP application: `create_app(settings)` builds FastAPI with every router.

Shared per-process state lives on `app.state`: `settings`, `engine`,
`sessions` (a sessionmaker; use `with request.app.state.sessions() as s:`),
`intake_token`, `intake_writer` and `refusals` (the refusal audit throttle,
whose summary rows a background task appends every window and at shutdown). Each concern adds its routes with one
`app.include_router(...)` line below, keeping handlers in `web/<concern>.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine

from rootward import __version__
from rootward.observability.tracing import configure_tracing
from rootward.runtime.intake_writer import IntakeWriter
from rootward.runtime.topology_links import topology_links_for
from rootward.settings import Settings
from rootward.store.audit_refusals import RefusalThrottle, flush_refusals
from rootward.store.db import make_engine, make_session_factory
from rootward.web import (
    approval_links,
    approvals,
    changes,
    console,
    health,
    intake,
    intake_connectors,
    judge,
    lifecycle,
    metrics,
    risk,
    slack_events,
    sources,
)
from rootward.web.openapi import complete_openapi

log = logging.getLogger(__name__)


async def _flush_refusals_every_window(sessions: Any, throttle: RefusalThrottle) -> None:
    while True:
        await asyncio.sleep(throttle.window_s)
        try:
            await asyncio.to_thread(flush_refusals, sessions, throttle)
        except Exception as exc:  # the next window tries again; the counts are kept until written
            log.warning("refusal summaries not written yet: %s", exc)


def create_app(settings: Settings, *, engine: Engine | None = None) -> FastAPI:
    """The API over the database of `settings` (migrations must already be applied)."""
    own_engine = engine is None
    configure_tracing(settings.tracing)
    engine = engine or make_engine(settings.database_url, echo=settings.database.echo)
    sessions = make_session_factory(engine)
    writer = IntakeWriter(sessions, settings.router, links=topology_links_for(settings))
    refusals = RefusalThrottle()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await writer.start()
        flusher = asyncio.create_task(_flush_refusals_every_window(sessions, refusals))
        try:
            yield
        finally:
            flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await flusher
            try:  # in this thread: at interpreter exit no worker thread may be left to take it
                flush_refusals(sessions, refusals, everything=True)
            except Exception as exc:
                log.warning("refusal summaries lost at shutdown: %s", exc)
            await writer.stop()
            if own_engine:
                engine.dispose()

    app = FastAPI(title="rootward", version=__version__, lifespan=lifespan)
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessions = sessions
    app.state.intake_token = intake.resolve_intake_token(settings)
    app.state.intake_writer = writer
    app.state.refusals = refusals

    app.include_router(health.router)
    app.include_router(intake.router)
    app.include_router(intake_connectors.router)
    app.include_router(changes.router)
    app.include_router(approvals.router)
    app.include_router(approval_links.router)
    app.include_router(slack_events.router)
    app.include_router(console.router)
    app.include_router(sources.router)
    app.include_router(lifecycle.router)
    app.include_router(metrics.router)
    app.include_router(risk.router)
    app.include_router(judge.router)
    app.openapi = lambda: complete_openapi(app)  # type: ignore[method-assign]
    app.mount("/static", StaticFiles(directory=str(Path(console.__file__).parent / "static")), name="static")
    return app
