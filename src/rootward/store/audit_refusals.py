"""Refusals in the audit trail without letting anonymous callers write it at will.

A refused request (a forged Slack signature, a click on an approval that does
not exist) is worth an audit row; 3,000 of them from one source in a minute
are worth one row that says 3,000. Per (kind, source, kind of reason) and
window, the first refusal is audited at once, in the caller's transaction, exactly as before;
the rest are only counted, and one summary row with the count, the reasons and
the time span is appended when the window has closed (`flush_refusals`, run
by the API's background loop and at shutdown). A flood therefore costs a
counter increment per request, not a serialized append to the hash chain.

The counters are per process (each API replica audits its own share); what a
crash can lose is at most one window of counts, never the first row.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy.orm import Session, sessionmaker

from rootward.store.audit import AuditEntry, append_audit_many

OTHER_SOURCES = "*"  # where sources beyond `max_sources` are counted
MAX_SUBJECTS = 10  # sample of refused subjects kept in a summary
_REASON_DETAIL = re.compile(r"[:(\d'\"]")


def reason_class(reason: str) -> str:
    """What kind of refusal this is, without its details ("stale request", not "... signed 312 s ago").

    Details (ages, ids, attacker-chosen action names) would make every refusal
    its own key and defeat the aggregation.
    """
    return _REASON_DETAIL.split(reason, maxsplit=1)[0].strip()[:60] or "refused"


@dataclass
class _Window:
    start: float
    first_at: float = 0.0
    last_at: float = 0.0
    suppressed: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    subjects: list[str] = field(default_factory=list)


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat()


class RefusalThrottle:
    """Decides, per (kind, source, reason class) and window, which refusals get their own audit row."""

    def __init__(self, window_s: float = 60.0, *, max_sources: int = 10_000, now: Callable[[], float] = time.time):
        self.window_s = window_s
        self._max_sources = max_sources
        self._now = now
        self._open: dict[tuple[str, str, str], _Window] = {}
        self._closed: list[tuple[tuple[str, str, str], _Window]] = []
        self._lock = threading.Lock()

    def admit(self, kind: str, source: str, reason: str, subject: str = "") -> bool:
        """True: audit this refusal now. False: it is counted into the window's summary row."""
        at = self._now()
        with self._lock:
            key = (kind, source, reason_class(reason))
            if key not in self._open and len(self._open) >= self._max_sources:
                key = (kind, OTHER_SOURCES, "")
            window = self._open.get(key)
            if window is not None and at - window.start < self.window_s:
                window.suppressed += 1
                window.reasons[reason] += 1
                window.first_at = window.first_at or at
                window.last_at = at
                if subject and subject not in window.subjects and len(window.subjects) < MAX_SUBJECTS:
                    window.subjects.append(subject)
                return False
            if window is not None and window.suppressed:
                self._closed.append((key, window))  # its count waits for the next flush
            self._open[key] = _Window(start=at)
            return True

    def due(self, *, everything: bool = False) -> list[AuditEntry]:
        """Summary rows of closed windows (of every window at shutdown), removed from the counters."""
        at = self._now()
        with self._lock:
            closed, self._closed = self._closed, []
            for key, window in list(self._open.items()):
                if everything or at - window.start >= self.window_s:
                    del self._open[key]
                    closed.append((key, window))
        return [_summary(kind, source, w) for (kind, source, _), w in closed if w.suppressed]


def _summary(kind: str, source: str, window: _Window) -> AuditEntry:
    data = {
        "source": source,
        "count": window.suppressed,
        "first_at": _iso(window.first_at),
        "last_at": _iso(window.last_at),
        "reasons": dict(window.reasons),
        "subjects": window.subjects,
        "summary": True,
    }
    return AuditEntry(kind, source, data)


def flush_refusals(sessions: sessionmaker[Session], throttle: RefusalThrottle, *, everything: bool = False) -> int:
    """Append the summary rows that are due; returns how many refusals they count."""
    entries = throttle.due(everything=everything)
    if not entries:
        return 0
    with sessions() as session, session.begin():
        append_audit_many(session, entries)
    return sum(int(e.data["count"]) for e in entries)
