"""Migration 0012 creates exactly what the session, replay, readiness and user models describe."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from rootward.store.base import Base
from rootward.store.console_sessions import ConsoleSessionRow
from rootward.store.db import make_engine
from rootward.store.readiness import ReadinessProbeRow
from rootward.store.slack_replays import SlackReplayRow
from rootward.store.users import ApiTokenRow, UserRow

TABLES = {t.__tablename__ for t in (ConsoleSessionRow, SlackReplayRow, ReadinessProbeRow, UserRow, ApiTokenRow)}


def _tables_of(entry: Any) -> set[str]:
    """Every table name an autogenerate diff entry mentions (entries are tuples, or lists of them)."""
    found: set[str] = set()
    for op in entry if isinstance(entry, list) else [entry]:
        for part in op[1:] if isinstance(op, tuple) else ():
            table = getattr(part, "table", None)
            name = getattr(table, "name", None) or getattr(part, "name", None)
            for candidate in (name, part if isinstance(part, str) else None):
                if candidate in TABLES:
                    found.add(str(candidate))
    return found


def test_the_migrated_schema_matches_the_models(migrated_db_url: str) -> None:
    engine = make_engine(migrated_db_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        engine.dispose()
    assert [d for d in diff if _tables_of(d)] == []
