"""Database fixtures for every test folder: the same test runs on SQLite and on PostgreSQL.

- `db_url`: a fresh, empty database per test, parametrized `sqlite` and
  `postgresql` (the latter marked `integration`, skipped when PostgreSQL at
  $ROOTWARD_TEST_PG, default postgresql://postgres@127.0.0.1:5432/test, is down).
- `migrated_db_url`: the same, already upgraded to every migration head.

SQLite: a file under the test's tmp_path (migrated: a copy of a template
migrated once per session). PostgreSQL: each pytest session (each xdist
worker) creates its own database `rootward_test_<random>`, dropped at the end;
an empty test database is a fresh schema in it (selected with `search_path`
in the URL), a migrated one is a schema migrated once per session and
emptied before each test. CREATE DATABASE per test would cost seconds.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PG_ADMIN_URL = os.environ.get("ROOTWARD_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)]
MIGRATED_SCHEMA = "migrated"


class PgSession:
    """This pytest session's own PostgreSQL database, and an autocommit connection to it."""

    def __init__(self, name: str, conn: Any) -> None:
        self.name = name
        self.conn = conn
        self.migrated = False

    def url(self, schema: str) -> str:
        base, _, _ = PG_ADMIN_URL.partition("?")[0].rpartition("/")
        return f"{base}/{self.name}?options=-csearch_path%3D{schema}"

    def create_schema(self) -> str:
        schema = f"t_{secrets.token_hex(6)}"
        self.conn.execute(f'CREATE SCHEMA "{schema}"')
        return schema

    def drop_schema(self, schema: str) -> None:
        self.conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    def truncate(self, schema: str) -> None:
        tables = [
            row[0]
            for row in self.conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s AND tablename <> 'alembic_version'",
                (schema,),
            )
        ]
        # DELETE with foreign-key triggers off: far cheaper than TRUNCATE on small tables.
        with self.conn.transaction():
            self.conn.execute("SET LOCAL session_replication_role = replica")
            for table in tables:
                self.conn.execute(f'DELETE FROM "{schema}"."{table}"')


@pytest.fixture(scope="session")
def pg_session() -> Iterator[PgSession]:
    import psycopg

    try:
        admin = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}")
    name = f"rootward_test_{secrets.token_hex(6)}"
    admin.execute(f'CREATE DATABASE "{name}"')
    session_url = PG_ADMIN_URL.partition("?")[0].rpartition("/")[0] + f"/{name}"
    conn = psycopg.connect(session_url, autocommit=True)
    try:
        yield PgSession(name, conn)
    finally:
        conn.close()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return {"dir": str(tmp_path_factory.mktemp("template"))}


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'rootward.db'}"
        return
    pg: PgSession = request.getfixturevalue("pg_session")
    schema = pg.create_schema()
    try:
        yield pg.url(schema)
    finally:
        pg.drop_schema(schema)


@pytest.fixture
def migrated_db_url(
    request: pytest.FixtureRequest, db_url: str, tmp_path: Path, _sqlite_template: dict[str, str]
) -> str:
    from rootward.store.migrate import upgrade

    if db_url.startswith("sqlite"):
        template = Path(_sqlite_template["dir"]) / "template.db"
        if not template.exists():
            upgrade(f"sqlite:///{template}")
        shutil.copyfile(template, tmp_path / "rootward.db")
        return db_url
    pg: PgSession = request.getfixturevalue("pg_session")
    if not pg.migrated:
        pg.conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{MIGRATED_SCHEMA}"')
        upgrade(pg.url(MIGRATED_SCHEMA))
        pg.migrated = True
    else:
        pg.truncate(MIGRATED_SCHEMA)
    return pg.url(MIGRATED_SCHEMA)


@pytest.fixture
def sqlite_migrated_url(tmp_path: Path, _sqlite_template: dict[str, str]) -> str:
    """A migrated SQLite database only (for tests whose subject is not the database)."""
    from rootward.store.migrate import upgrade

    template = Path(_sqlite_template["dir"]) / "template.db"
    if not template.exists():
        upgrade(f"sqlite:///{template}")
    shutil.copyfile(template, tmp_path / "rootward.db")
    return f"sqlite:///{tmp_path / 'rootward.db'}"
