"""Runtime test fixtures on the shared `migrated_db_url` (SQLite and PostgreSQL, empty per test)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from rootward.settings import DatabaseSettings, RuntimeSettings, Settings
from rootward.store.db import make_engine, make_session_factory


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No `ROOTWARD_*` variable of the calling shell (or `make`) leaks into an in-process CLI call."""
    import os

    for key in list(os.environ):
        if key.startswith("ROOTWARD_"):
            monkeypatch.delenv(key)


@pytest.fixture
def engine(migrated_db_url: str) -> Iterator[Engine]:
    engine = make_engine(migrated_db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session_factory(engine: Engine) -> sessionmaker[Session]:
    return make_session_factory(engine)


def runtime_settings(db_url: str, **runtime: Any) -> Settings:
    """Settings for a test database with runtime overrides (fast leases and polls by default)."""
    values: dict[str, Any] = {"lease_s": 2, "heartbeat_s": 0.2, "poll_s": 0.05, "workers": 2, "pipeline": "placeholder"}
    values.update(runtime)
    return Settings(
        database=DatabaseSettings(url=db_url),
        runtime=RuntimeSettings(**values),
        data_dir=Path("/nonexistent-unused"),
    )
