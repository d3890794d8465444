"""A stack trace split into one record a line is read as the one record it was.

A shipper without a multi-line rule (a file tailer, `kubectl logs` exported line
by line, Loki without a `multiline` stage) turns one Java exception into its
header and thirty records of `\tat org.springframework...`, a Python error into
`Traceback (most recent call last):`, its `File "..."` lines and the exception
last. Read line by line, every frame is a template of its own: a burst of new
templates that name no mechanism, which reads as a code fault at that service,
louder than the exception's own words (`Caused by: ... Connection refused`).

So a record continues the one before it in its stream (same service, pod and
host) when it follows within `MAX_GAP_S` and has the shape only continuations
have: an indented line (`\tat ...`, `  File "..."`), `... 12 more`,
`Caused by:` / `Suppressed:`, a Go `goroutine 7 [running]:` header, and, in a
Python traceback, the unindented exception line that ends it. The joined
record keeps the head's time, level and line (cites point at the header, where
a reader starts) and its message gains the lines that say what failed (the
cause chain, the exception that ended a traceback); the frames are only
counted (`extra["continuation_lines"]`), since where the code was says
nothing the header does not, and each would make the template longer and
rarer.

A continuation states no level of its own, or the head's (a shipper that
stamps every line of a stream alike): a record with another level is a record.
A record that is itself indented continues nothing and is continued by nothing
(a service that indents every line it writes is not writing one long trace).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rootward.domain.telemetry import LogRecord

# Continuation lines are written in one go with their header: stamped within this of it.
MAX_GAP_S = 1.0
# Lines that only a continuation has.
_FRAME = re.compile(r"^(?:[ \t]+\S|\.\.\. \d+ (?:more|common frames omitted)\b|goroutine \d+ \[[^\]]*\]:$)")
# Lines of a continuation that say what failed, kept in the message.
_CAUSE = re.compile(r"^\s*(?:Caused by|Suppressed):\s")
_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):\s*$")
# The unindented line that ends a Python traceback: `ValueError: ...`, `requests.exceptions.ReadTimeout: ...`.
_TRACEBACK_END = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Timeout)\b(?::|$)")
COUNT_KEY = "continuation_lines"
# What any continuation line, or the head of a traceback, begins with: the cheap test first.
_MAYBE = re.compile(r"[ \t]|\.\.\. \d|\s*(?:Caused by|Suppressed):|goroutine \d|Traceback \(most")


@dataclass
class _Open:
    """The record being continued in one stream, and what has been joined to it."""

    head: LogRecord
    last_s: float
    causes: list[str]
    frames: int
    in_traceback: bool

    def record(self) -> LogRecord:
        if not self.causes and not self.frames:
            return self.head
        message = "\n".join([self.head.message, *self.causes])
        extra = {**self.head.extra, COUNT_KEY: str(self.frames + len(self.causes))}
        return replace(self.head, message=message, extra=extra)


def joined_continuations(records: Sequence[LogRecord]) -> list[LogRecord]:
    """The records with every continuation line joined to the record it continues, in time order.

    Records none of which can be or begin a continuation are returned as they are, unsorted: the
    common case (one record a message) costs one anchored match a record.
    """
    if not any(_MAYBE.match(r.message) for r in records):
        return list(records)
    ordered = sorted(records, key=lambda r: (r.ts, r.line))
    out: list[_Open] = []
    open_by_stream: dict[tuple[str, str, str], _Open] = {}
    for r in ordered:
        stream = (r.service, r.pod, r.host)
        at = r.ts.timestamp()
        current = open_by_stream.get(stream)
        if current is not None and _continues(current, r, at):
            _join(current, r, at)
            continue
        opened = _Open(r, at, [], 0, bool(_TRACEBACK.match(r.message)))
        out.append(opened)
        if _FRAME.match(r.message):
            open_by_stream.pop(stream, None)  # a stream whose lines are all indented is not one trace
        else:
            open_by_stream[stream] = opened
    return [o.record() for o in out]


def _continues(current: _Open, r: LogRecord, at: float) -> bool:
    if at - current.last_s > MAX_GAP_S or r.level not in ("", current.head.level):
        return False
    text = r.message
    return bool(_FRAME.match(text) or _CAUSE.match(text) or (current.in_traceback and _TRACEBACK_END.match(text)))


def _join(current: _Open, r: LogRecord, at: float) -> None:
    text = r.message.strip()
    current.last_s = at
    if _CAUSE.match(r.message):
        current.causes.append(text)
    elif current.in_traceback and not _FRAME.match(r.message):
        current.causes.append(text)  # the exception that ended the traceback
        current.in_traceback = False
    else:
        current.frames += 1
