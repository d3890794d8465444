"""Database engines: SQLite (WAL, busy timeout) by default, PostgreSQL by URL.

On SQLite every transaction starts with `BEGIN IMMEDIATE`: writers queue on
the busy timeout instead of failing with SQLITE_BUSY when a read transaction
later tries to write (the single-writer discipline the queue and the audit
chain rely on). Since SQLAlchemy opens a transaction for reads too, keep every
session short.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from rootward.store.busy_timeout import SQLITE_BUSY_TIMEOUT_S

if TYPE_CHECKING:
    from sqlalchemy.engine import ExceptionContext


def is_postgres(url: str) -> bool:
    return url.startswith("postgresql")


def normalise_url(url: str) -> str:
    """Use psycopg 3 for bare postgresql:// URLs."""
    if url.startswith("postgresql://"):
        return "postgresql+psycopg://" + url[len("postgresql://") :]
    if url.startswith("postgres://"):
        return "postgresql+psycopg://" + url[len("postgres://") :]
    return url


def _json_dumps(value: Any) -> str:
    """JSON columns through orjson: several times faster than json.dumps on the intake path."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


JSON_CODEC: dict[str, Any] = {"json_serializer": _json_dumps, "json_deserializer": orjson.loads}

# Where an engine notes its URL on the errors it raises: a driver error does not say which database it came from.
_URL_ATTRIBUTE = "rootward_database_url"


def _note_database_url(context: ExceptionContext) -> None:
    """Only annotates: what is raised, and what code that catches it sees, stays the same."""
    error = context.sqlalchemy_exception
    if context.engine is not None and error is not None:
        setattr(error, _URL_ATTRIBUTE, context.engine.url.render_as_string(hide_password=True))


def database_url_of(error: BaseException) -> str | None:
    """The URL (password masked) of the database an engine of `make_engine` raised `error` from."""
    url = getattr(error, _URL_ATTRIBUTE, None)
    return url if isinstance(url, str) else None


def make_engine(url: str, *, echo: bool = False) -> Engine:
    engine = _engine(url, echo=echo)
    event.listen(engine, "handle_error", _note_database_url)
    return engine


def _engine(url: str, *, echo: bool) -> Engine:
    url = normalise_url(url)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        connect_args = {"timeout": SQLITE_BUSY_TIMEOUT_S, "check_same_thread": False}
        engine = create_engine(url, echo=echo, connect_args=connect_args, **JSON_CODEC)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_S * 1000}")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()
            # Let SQLAlchemy, not pysqlite, decide when a transaction begins (see below).
            dbapi_conn.isolation_level = None

        @event.listens_for(engine, "begin")
        def _sqlite_begin_immediate(conn: Any) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    return create_engine(url, echo=echo, pool_pre_ping=True, pool_size=10, max_overflow=20, **JSON_CODEC)


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
