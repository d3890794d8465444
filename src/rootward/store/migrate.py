"""Apply the Alembic migrations shipped inside the package (no alembic.ini needed).

Every concern adds its migration as a branch on `0001_foundation`, so the
target is always `heads`. `serve` and `worker` call `upgrade` at start.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("path_separator", "os")
    # ConfigParser interpolation would choke on '%' in URL-encoded passwords.
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str) -> None:
    """Bring the database at `url` to the newest revision of every branch."""
    command.upgrade(alembic_config(url), "heads")


def current_heads(url: str) -> set[str]:
    from alembic.runtime.migration import MigrationContext

    from rootward.store.db import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return set(MigrationContext.configure(conn).get_current_heads())
    finally:
        engine.dispose()
