"""The HTTP application: `create_app(settings)` builds FastAPI with every router.

Shared per-process state lives on `app.state`: `settings`, `engine`,
`sessions` (a sessionmaker; use `with request.app.state.sessions() as s:`),
`intake_token` and `intake_writer`. Each concern adds its routes with one
`app.include_router(...)` line below, keeping handlers in `web/<concern>.py`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine

from rootward import __version__
from rootward.observability.tracing import configure_tracing
from rootward.runtime.intake_writer import IntakeWriter
from rootward.settings import Settings
from rootward.store.db import make_engine, make_session_factory
from rootward.web import approvals, changes, console, health, intake, metrics


def create_app(settings: Settings, *, engine: Engine | None = None) -> FastAPI:
    """The API over the database of `settings` (migrations must already be applied)."""
    own_engine = engine is None
    configure_tracing(settings.tracing)
    engine = engine or make_engine(settings.database_url, echo=settings.database.echo)
    sessions = make_session_factory(engine)
    writer = IntakeWriter(sessions, settings.router)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await writer.start()
        try:
            yield
        finally:
            await writer.stop()
            if own_engine:
                engine.dispose()

    app = FastAPI(title="rootward", version=__version__, lifespan=lifespan)
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessions = sessions
    app.state.intake_token = intake.resolve_intake_token(settings)
    app.state.intake_writer = writer

    app.include_router(health.router)
    app.include_router(intake.router)
    app.include_router(changes.router)
    app.include_router(approvals.router)
    app.include_router(console.router)
    app.include_router(metrics.router)
    app.mount("/static", StaticFiles(directory=str(Path(console.__file__).parent / "static")), name="static")
    return app
