"""The feedback form's free-text fields, checked against the `feedback` table before anything is stored.

A corrected entity longer than its column is a 500 on PostgreSQL (and silently
stored on SQLite) unless it is refused here with a message; NUL characters,
which PostgreSQL text cannot hold, are removed on every backend alike. The
route hands the checked values both to the store and to the background tasks
(runbook draft, learning), so neither sees what the other refused.
"""

from __future__ import annotations

from fastapi import HTTPException

from rootward.store.investigations import FeedbackRow
from rootward.store.text_limits import column_length, without_nul


def _checked(name: str, value: str, column: object) -> str:
    value = without_nul(value)
    limit = column_length(column)
    if limit is not None and len(value) > limit:
        raise HTTPException(400, f"{name} is {len(value)} characters; the limit is {limit}")
    return value


def feedback_fields(corrected_entity: str, corrected_fault: str, note: str) -> tuple[str, str, str]:
    """The three text fields, NUL removed, or a 400 naming the one that is too long."""
    return (
        _checked("corrected_entity", corrected_entity, FeedbackRow.corrected_entity),
        _checked("corrected_fault", corrected_fault, FeedbackRow.corrected_fault),
        _checked("note", note, FeedbackRow.note),
    )
