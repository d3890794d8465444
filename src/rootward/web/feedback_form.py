"""The feedback form's free-text fields, checked against the `feedback` table before anything is stored.

A corrected entity longer than its column is a 500 on PostgreSQL (and silently
stored on SQLite) unless it is refused here with a message; NUL characters,
which PostgreSQL text cannot hold, are removed on every backend alike. The
route hands the checked values both to the store and to the background tasks
(runbook draft, learning), so neither sees what the other refused.
"""

from __future__ import annotations

from rootward.store.investigations import FeedbackRow
from rootward.store.text_limits import column_length, without_nul


class FeedbackRefused(ValueError):
    """A field the store cannot take; the message names it and its limit."""


def _checked(name: str, value: str, column: object) -> str:
    value = without_nul(value)
    limit = column_length(column)
    if limit is not None and len(value) > limit:
        raise FeedbackRefused(f"{name} is {len(value)} characters; the limit is {limit}")
    return value


def feedback_fields(corrected_entity: str, corrected_fault: str, note: str) -> tuple[str, str, str]:
    """The three text fields, NUL removed; `FeedbackRefused` names the one that is too long."""
    return (
        _checked("corrected_entity", corrected_entity, FeedbackRow.corrected_entity),
        _checked("corrected_fault", corrected_fault, FeedbackRow.corrected_fault),
        _checked("note", note, FeedbackRow.note),
    )
