"""Runtime test fixtures: a migrated database on SQLite and on PostgreSQL.

Each backend gets one throwaway database per test session (PostgreSQL: a fresh
database on the local server, dropped at the end), emptied before every test.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from rootward.settings import Settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.migrate import upgrade

PG_ADMIN_URL = os.environ.get("ROOTWARD_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
TABLES = ("investigation_checkpoints", "investigation_jobs", "worker_heartbeats", "audit_log")


def _pg_database(tmp_name: str) -> Iterator[str]:
    psycopg = pytest.importorskip("psycopg")
    try:
        admin = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{tmp_name}"')
    base, _, _ = PG_ADMIN_URL.rpartition("/")
    try:
        yield f"{base}/{tmp_name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{tmp_name}" WITH (FORCE)')


@pytest.fixture(scope="session", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A migrated database URL of each backend, shared by the session's tests."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('runtime-db') / 'rootward.db'}"
        upgrade(url)
        yield url
        return
    gen = _pg_database(f"rootward_runtime_{os.getpid()}_{secrets.token_hex(3)}")
    url = next(gen)
    upgrade(url)
    yield url
    gen.close()


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    with engine.begin() as conn:
        for table in TABLES:
            conn.execute(text(f"DELETE FROM {table}"))
    yield engine
    engine.dispose()


@pytest.fixture
def session_factory(engine: Engine) -> sessionmaker[Session]:
    return make_session_factory(engine)


def runtime_settings(db_url: str, **runtime: Any) -> Settings:
    """Settings for a test database with runtime overrides (fast leases and polls by default)."""
    values: dict[str, Any] = {"lease_s": 2, "heartbeat_s": 0.2, "poll_s": 0.05, "workers": 2}
    values.update(runtime)
    return Settings(database={"url": db_url}, runtime=values, data_dir=Path("/nonexistent-unused"))
