from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from rootward.store.alerts import AlertGroupRow, AlertRow, RoutingDecisionRow
from rootward.store.audit import AuditRow
from rootward.store.base import Base
from rootward.store.db import make_engine
from rootward.store.migrate import alembic_config, current_heads, upgrade

FOUNDATION_TABLES = {t.__tablename__ for t in (AlertGroupRow, AlertRow, RoutingDecisionRow, AuditRow)}


def test_upgrade_creates_the_foundation_tables_and_is_idempotent(db_url: str) -> None:
    upgrade(db_url)
    upgrade(db_url)
    assert current_heads(db_url) == set(ScriptDirectory.from_config(alembic_config(db_url)).get_heads())
    engine = make_engine(db_url)
    try:
        assert set(inspect(engine).get_table_names()) >= FOUNDATION_TABLES
    finally:
        engine.dispose()


def test_foundation_migration_matches_the_models(migrated_db_url: str) -> None:
    engine = make_engine(migrated_db_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        engine.dispose()

    def table_of(entry: object) -> str | None:
        op = entry[0] if isinstance(entry, list) else entry
        for part in op[1:] if isinstance(op, tuple) else ():
            name = getattr(part, "name", None) if not isinstance(part, str) else None
            table = getattr(part, "table", None)
            if table is not None and getattr(table, "name", None):
                return str(table.name)
            if isinstance(part, str) and part in FOUNDATION_TABLES:
                return part
            if name in FOUNDATION_TABLES:
                return str(name)
        return None

    mine = [d for d in diff if table_of(d) in FOUNDATION_TABLES]
    assert mine == []
