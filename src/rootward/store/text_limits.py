"""What a text column can hold, read from the table definitions so the edge checks the real limits.

PostgreSQL refuses a value longer than a `VARCHAR(n)` and any NUL character in
text (SQLite stores both), so a value that reaches the database unchecked
fails the whole transaction on one backend only. The HTTP edge validates
against these instead of repeating the numbers.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import String

NUL = "\x00"


def column_length(column: Any) -> int | None:
    """The declared length of a `String(n)` column or ORM attribute; None for unbounded text."""
    column_type = getattr(column, "type", None)
    return column_type.length if isinstance(column_type, String) else None


def without_nul(value: str) -> str:
    """`value` without NUL characters, which PostgreSQL text cannot hold."""
    return value.replace(NUL, "") if NUL in value else value
