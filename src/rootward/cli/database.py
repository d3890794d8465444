"""What CLI verbs share: load the configuration, open a database session.

A database that is not migrated or not reachable is reported by the root
command (`cli/database_errors.py`), for every verb alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from sqlalchemy.orm import Session

from rootward.settings import ConfigError, Settings, load_settings


def settings_from(config: Path | None) -> Settings:
    """The configuration, or exit 2 with every bad key path and its reason."""
    try:
        return load_settings(config)
    except ConfigError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None


@contextmanager
def session_scope(settings: Settings) -> Iterator[Session]:
    """A session on the configured database, disposed of afterwards."""
    from rootward.store.db import make_engine, make_session_factory

    engine = make_engine(settings.database_url)
    try:
        with make_session_factory(engine)() as session:
            yield session
    finally:
        engine.dispose()
