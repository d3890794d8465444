"""A log line is read up to `MAX_MESSAGE_CHARS`: what follows is kept in the bundle, not clustered.

One record can hold a whole request body, a serialized object or a minified
JSON document: 100 KB in one line. Masking and Drain's tokenizer work per
character and per token, so a few such lines among thousands made clustering
take minutes and gigabytes (an investigation killed for memory), for text
that says nothing a template could: what a line is about is at its head. So
the analysis reads the first `MAX_MESSAGE_CHARS` of each message; the cite
still names the line, whose full text stays where it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rootward.domain.telemetry import LogRecord

# Longer than any log line a person writes (a stack trace header with its cause chain included).
MAX_MESSAGE_CHARS = 4096


def clipped(records: Sequence[LogRecord]) -> list[LogRecord]:
    """The records, each message cut to `MAX_MESSAGE_CHARS` (the same records when none is longer)."""
    cut = MAX_MESSAGE_CHARS
    return [r if len(r.message) <= cut else replace(r, message=r.message[:cut]) for r in records]
