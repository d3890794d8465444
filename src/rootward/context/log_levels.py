"""The severity a log line states about itself, for records that arrive without one.

Container stdout shipped as-is (Loki without a level label, a file tailer, an
exported `kubectl logs`) carries the level only inside the text:
`16:48:42.468 ERROR c.e.FoodServiceImpl#302 ...` (logback),
`ERROR:root:...` (Python logging), `time=... level=error msg=...` (logfmt),
`{"level":"warn",...}`, `2026/03/14 14:31:02 [error] 31#31: ...` (nginx),
`[core:error] [pid 12]` (Apache), `E0314 14:31:02.118 12 server.go:91] ...`
(glog). Read as level-less, every one of those would be an INFO line, and a
service that logs its exceptions only that way would look healthy to every
error-level signal. So the level is read off the line's head, where every
one of those formats puts it; a word deeper in the text ("... returned
ERROR 42 to the client") is content, not severity, and is left alone.

A record that has a level keeps it: the shipper's field is authoritative,
except where it is only the shipper's default. Cloud Logging gives every
non-JSON stdout line INFO (or DEFAULT), and many tailers and converters write
INFO for a line they did not parse; a line whose own head says ERROR or WARN
then states its severity better than the field does. So a record at such a
default level takes a *more severe* level its head states, never a milder one.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rootward.domain.telemetry import LogRecord

# Where each convention puts the level: before the message proper.
HEAD_CHARS = 96
HEAD_TOKENS = 6

_CANONICAL = {
    "trace": "TRACE",
    "debug": "DEBUG",
    "info": "INFO",
    "notice": "NOTICE",
    "warn": "WARN",
    "warning": "WARN",
    "error": "ERROR",
    "err": "ERROR",
    "severe": "ERROR",
    "fatal": "FATAL",
    "critical": "CRITICAL",
    "crit": "CRITICAL",
    "alert": "ALERT",
    "emerg": "EMERG",
    "panic": "PANIC",
}
_WORDS = "|".join(sorted(_CANONICAL, key=len, reverse=True))
# `level=error`, `"level": "warn"`, `severity:ERROR`: a named field says it outright (any case).
_KEYS = "level|lvl|severity|loglevel|log_level"
_FIELD = re.compile(rf"""(?:^|[\s{{,;])["']?(?:{_KEYS})["']?\s*[=:]\s*["']?({_WORDS})\b""", re.I)
# `ERROR`, `[WARN]`, `<ERROR>`, `ERROR:root:...`: an upper-case level word as a whole token of the head.
_UPPER = re.compile(rf"^[\[<(]?({_WORDS.upper()})(?:[\]>)|]*$|:)")
# `[error]`, `[core:error]`: a lower-case level only in brackets (nginx, Apache), where it cannot be prose.
_BRACKETED = re.compile(rf"^\[(?:[\w.-]+:)?({_WORDS})\]$")
# A plain lower-case word: prose has begun.
_WORD = re.compile(r"^[a-z]{2,}$")
# glog / klog: `E0314 14:31:02.118...`: severity letter, month and day, then the time.
_GLOG = re.compile(r"^([IWEF])\d{4} \d{2}:\d{2}:\d{2}")
_GLOG_LEVELS = {"I": "INFO", "W": "WARN", "E": "ERROR", "F": "FATAL"}


def stated_level(message: str, *, before_prose: bool = False) -> str:
    """The canonical level the line's head states ("" when it states none).

    `before_prose`: only a level that comes before any lower-case word counts (a timestamp,
    a pid, a bracket may precede it), for overruling a field rather than filling a gap.
    """
    head = message[:HEAD_CHARS]
    if m := _GLOG.match(head):
        return _GLOG_LEVELS[m.group(1)]
    if m := _FIELD.search(message[: 4 * HEAD_CHARS]):
        return _CANONICAL[m.group(1).lower()]
    prose = False  # a lower-case word came first: a bracketed lower-case level after it is text
    for token in head.split()[:HEAD_TOKENS]:
        if prose and before_prose:
            return ""
        if m := _UPPER.match(token) or (None if prose else _BRACKETED.match(token)):
            return _CANONICAL[m.group(1).lower()]
        prose = prose or _WORD.match(token) is not None
    return ""


# Levels a shipper writes for a line it did not parse: the text may know better.
DEFAULT_LEVELS = frozenset({"INFO", "DEFAULT", "UNSPECIFIED"})
# Stated levels that outrank a shipper's default.
SEVERE = frozenset({"WARN", "ERROR", "FATAL", "CRITICAL", "ALERT", "EMERG", "PANIC"})
# A severe level, stated any way `stated_level` reads, holds one of these words (or is glog's letter
# and date): a line with none of them in the part it reads keeps its default without being read.
_SEVERE_WORDS = ("warn", "err", "severe", "fatal", "crit", "alert", "emerg", "panic")


def _may_state_severe(message: str) -> bool:
    """Cheap and never wrong the other way: substring checks, not a case-blind regex (5x the cost)."""
    if message[:1] in ("W", "E", "F") and message[1:5].isdigit():
        return True
    head = message[: 4 * HEAD_CHARS].lower()
    # _SEVERE_WORDS spelled out: a generator over them cost twice the checks themselves.
    return (
        "err" in head
        or "warn" in head
        or "crit" in head
        or "fatal" in head
        or "alert" in head
        or "severe" in head
        or "emerg" in head
        or "panic" in head
    )


def with_stated_level(record: LogRecord) -> LogRecord:
    """The record, with the level its text states when the record carries none (or only a default)."""
    if record.level and record.level.upper() not in DEFAULT_LEVELS:
        return record
    if record.level and not _may_state_severe(record.message):
        return record  # nearly every INFO line: reading its head could only confirm the default
    level = stated_level(record.message, before_prose=bool(record.level))
    if record.level and level not in SEVERE:
        return record
    return replace(record, level=level) if level else record
