"""Alembic environment, driven programmatically by `rootward.store.migrate` (no alembic.ini).

On PostgreSQL the whole upgrade holds an advisory lock, so a `serve` and a
`worker` starting together do not race to create the same tables.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from rootward.store.base import Base
from rootward.store.db import make_engine

MIGRATION_LOCK_KEY = 0x726F6F74_6D696772  # "rootmigr"

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        engine = make_engine(config.get_main_option("sqlalchemy.url") or "")
        with engine.connect() as conn:
            _run(conn)
        engine.dispose()
    else:
        _run(connection)


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("rootward migrations run online only: use `rootward db upgrade`")
run_migrations_online()
