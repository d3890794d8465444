"""What CLI verbs share: load the configuration, open a database session.

A database that is not migrated or not reachable is reported by the root
command (`cli/database_errors.py`), for every verb alike. The settings and the
database are imported when a verb asks for them, not when the CLI starts.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from rootward.settings import Settings


def settings_from(config: Path | None) -> Settings:
    """The configuration, or exit 2 with every bad key path and its reason."""
    from rootward.settings import ConfigError, load_settings

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
