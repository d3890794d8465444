"""One line, exit 2, for any CLI command that hits an un-migrated or unreachable database.

Every verb opens the database its own way (a session, a migration, a repository
call), so the translation lives here, once, at the root of the command tree:
`RootwardGroup.invoke` catches the SQLAlchemy error that escapes a command and
prints what is wrong and how to fix it, instead of a traceback.

The error does not say which database it came from; the engines rootward makes
(`store.db.make_engine`) note their URL on the errors they raise, and the line
names it.

SQLAlchemy is imported only once a command has failed, and only if the command
itself imported it: a verb that never touches the database (and `--help`) does
not pay for loading it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    from sqlalchemy.exc import DBAPIError

EXIT_DATABASE = 2

# Driver messages (SQLite, psycopg) that mean the schema is missing or behind the code.
_NOT_MIGRATED = ("no such table", "no such column", "does not exist")
# ... and that mean there is no database to talk to.
_UNREACHABLE = (
    "connection refused",
    "connection failed",
    "could not connect",
    "could not translate host name",
    "name or service not known",
    "timeout expired",
    "server closed the connection",
    "unable to open database file",
    "authentication failed",
    "no password supplied",
)


def database_error_in(exc: BaseException) -> DBAPIError | None:
    """The SQLAlchemy driver error `exc` is or was raised from, if any.

    A process that never imported SQLAlchemy cannot have raised one, so the check costs nothing there.
    """
    if "sqlalchemy" not in sys.modules:
        return None
    from sqlalchemy.exc import DBAPIError

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, DBAPIError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def describe_database_error(error: DBAPIError) -> str:
    """What is wrong with the database and how to fix it, in one line."""
    from rootward.store.db import database_url_of

    url = database_url_of(error) or "the configured URL"
    lines = str(error.orig).strip().splitlines() or [type(error.orig).__name__]
    detail = lines[0].strip()
    lowered = str(error.orig).lower()
    if any(marker in lowered for marker in _UNREACHABLE):
        return (
            f"error: cannot reach the database at {url} ({detail}): start it, or set database.url "
            "(or ROOTWARD_DATABASE_URL) to one that is reachable"
        )
    if any(marker in lowered for marker in _NOT_MIGRATED):
        return f"error: the database at {url} is not migrated ({detail}): run `rootward db upgrade`"
    return f"error: database error at {url} ({type(error.orig).__name__}: {detail})"


class RootwardGroup(TyperGroup):
    """The root command: runs the chosen verb and turns a database failure into one line and exit 2."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            error = database_error_in(exc)
            if error is None:
                raise
            typer.echo(describe_database_error(error), err=True)
            raise typer.Exit(EXIT_DATABASE) from None
