"""Kubernetes events and pod states carried as log lines: keep their reason in the text the engine reads.

The live Kubernetes source (`sources/kubernetes.py`) writes events as
`"<Reason>: <Kind>/<name>: <message> (xN)"` with `source`/`reason` keys; bundles
from other tools often carry the reason only as a key (`{"source":
"kubernetes", "reason": "OOMKilled", "message": "Container app was killed",
"exit_code": 137}`). Clustering, signatures and the claims read the message,
so the reason, the exit code and the repeat count join it, verbatim, when the
message does not already say them: the words an engineer greps for
(`OOMKilled`, `ImagePullBackOff`, `FailedScheduling`) then reach the RCA.
"""

from __future__ import annotations

from dataclasses import replace

from rootward.domain.telemetry import LogRecord

EXIT_KEYS = ("exit_code", "exitCode", "exit")
COUNT_KEYS = ("count",)
OBJECT_KEYS = ("involved_object", "involvedObject", "object")
WARNING_TYPES = frozenset({"warning", "error"})


def _first(extra: dict[str, str], keys: tuple[str, ...]) -> str:
    return next((extra[k] for k in keys if extra.get(k) not in (None, "", "None")), "")


def event_text(record: LogRecord) -> LogRecord:
    """The record with its event reason, involved object, exit code and count in its message."""
    extra = record.extra
    reason = extra.get("reason", "").strip()
    if not reason:
        return record
    message = record.message
    if reason.lower() not in message.lower():
        obj = _first(extra, OBJECT_KEYS)
        message = f"{reason}: {obj + ': ' if obj and obj not in message else ''}{message}"
    code = _first(extra, EXIT_KEYS)
    if code and f"exit code {code}" not in message.lower():
        message += f" (exit code {code})"
    count = _first(extra, COUNT_KEYS)
    if count.isdigit() and int(count) > 1 and f"x{count}" not in message:
        message += f" (x{count})"
    level = record.level or ("WARN" if extra.get("type", "").lower() in WARNING_TYPES else "")
    return replace(record, message=message, level=level)
