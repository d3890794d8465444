"""Deploys the logs record: a service that starts logging a version it had not logged before.

Many teams have no change feed, or one that misses what a pipeline rolled out by
hand. The logs still say it: a process that starts prints its version (a
banner, `Started payments v3.40.0`, a `version=3.40.0` field on every line).
A version a service had not logged in the window before, first seen after it had
been logging for a while without it, says a new build of it started then. Read
so, the deploy enters the investigation like one from the change source, cited
by the line that shows it, but it records nothing about the services that do not
print versions: `ChangeItem.from_logs` keeps the two apart.

On Kubernetes the pods say it too: a Deployment's pod is named for the hash of
its pod template (`payments-7d9f8b6c4-x2k9p`), so lines from the pods of a
ReplicaSet the service's earlier lines never came from are a rollout, while a
restart, an eviction or a scale-up keeps the hash. That is read where no line
states a new version.

Only versions written as such count (three numbers after a `v` or a
`version`/`ver` key), so a user agent's `Chrome/120.0.6099.71` or an address is
not one. A version seen again in the service's later lines is the one running;
a line naming two (`v3.40.0 (previous v3.39.4)`) is read so, and is a deploy
however little the service logged before it when its later lines run one of
the two and not the other (logs kept in short blocks around events may hold
the banner in a block's first minutes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from rootward.context.changes import ChangeItem
from rootward.domain.evidence import EvidenceRef, log_cite
from rootward.domain.pod_names import replica_set_of
from rootward.domain.telemetry import LogRecord

# `v3.40.0` standing alone, or a number after a version key: `version=3.40.0`, `app_version: 3.40.0`,
# `"serviceVersion":"3.40.0"`, `ver 3.40.0` (not `server`, `driver`: the key must start a word or a camel hump).
_NUMBER = r"(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\b"
VERSION = re.compile(
    rf"(?<![\w./-])[vV]{_NUMBER}"
    rf"|(?:(?<![A-Za-z])[Vv]er(?:sion)?|(?<=[a-z])Ver(?:sion)?)[\"']?\s*[=:]?\s*[\"']?[vV]?{_NUMBER}"
)
# It had been logging this long, and this many lines, without the version: it was running, and another build.
MIN_EARLIER = timedelta(minutes=5)
MIN_EARLIER_LINES = 5


# What every VERSION match holds, without the lookbehinds that make VERSION slow: most lines have none.
_DOTTED = re.compile(r"[vV](?:er(?:sion)?)?\W{0,8}\d+\.\d+\.\d")


def versions_in(message: str) -> list[str]:
    """The versions a line states, in the order it states them."""
    if _DOTTED.search(message) is None:
        return []
    return [a or b for a, b in VERSION.findall(message)]


def deploys_in_logs(records: Iterable[LogRecord], reference: datetime) -> list[ChangeItem]:
    """Per service, the first line stating a version it had not logged before in the window, as a deploy."""
    by_service: dict[str, list[LogRecord]] = {}
    for r in records:
        by_service.setdefault(r.service, []).append(r)
    out = []
    for service, lines in sorted(by_service.items()):
        ordered = sorted(lines, key=lambda r: r.ts)
        found = _first_new_version(ordered)
        if found is not None:
            out.append(_item(service, *found, reference))
        elif (rolled := _first_new_replica_set(ordered)) is not None:
            out.append(_rollout(service, *rolled, reference))
    return out


def _first_new_replica_set(lines: Sequence[LogRecord]) -> tuple[LogRecord, str] | None:
    """The first line from the pods of a ReplicaSet the service's earlier lines never came from."""
    seen: set[str] = set()
    of_pod: dict[str, str | None] = {}  # a service's lines come from a handful of pods
    for i, r in enumerate(lines):
        pod = r.pod
        if not pod:
            continue
        if pod not in of_pod:
            of_pod[pod] = replica_set_of(pod)
        rs = of_pod[pod]
        if rs is None:
            continue
        if seen and rs not in seen and i >= MIN_EARLIER_LINES and r.ts - lines[0].ts >= MIN_EARLIER:
            return r, rs
        seen.add(rs)
    return None


def _rollout(service: str, line: LogRecord, replica_set: str, reference: datetime) -> ChangeItem:
    return ChangeItem(
        id=f"log-{replica_set}",
        kind="deploy",
        service=service,
        time=line.ts,
        summary=f"pods of a new ReplicaSet {replica_set} start logging",
        seconds_before_onset=int((reference - line.ts).total_seconds()),
        evidence=EvidenceRef("log", log_cite(line.line), f"{line.pod}: {line.message[:160]}"),
        from_logs=True,
    )


def _first_new_version(lines: Sequence[LogRecord]) -> tuple[LogRecord, str] | None:
    seen: set[str] = set()
    may_state = _DOTTED.search  # `versions_in`'s own test, inline: nearly every line states none
    for i, r in enumerate(lines):
        if may_state(r.message) is None:
            continue
        stated = versions_in(r.message)
        new = [v for v in stated if v not in seen]
        if new and i >= MIN_EARLIER_LINES and r.ts - lines[0].ts >= MIN_EARLIER:
            later = {v for x in lines[i + 1 :] for v in versions_in(x.message)}
            return r, next((v for v in new if v in later), new[0])
        if new and (replaced := _replacing(stated, lines[i + 1 :])) is not None:
            return r, replaced
        seen.update(stated)
    return None


def _replacing(stated: Sequence[str], later: Sequence[LogRecord]) -> str | None:
    """The version a line names as replacing another, when the service's later lines run it and not the other.

    `Started orders v3.14.0 (previous v3.13.5)` says a deploy happened without any earlier
    line to compare with: logs kept only in short blocks (a snapshot of a few minutes around
    each event) may hold the banner in a block's first minutes. A line naming two versions
    that the later lines keep naming both (a client and a server version on every request)
    is no deploy.
    """
    if len(set(stated)) < 2:
        return None
    running = {v for x in later for v in versions_in(x.message)}
    kept = [v for v in stated if v in running]
    return kept[0] if kept and len(set(kept)) < len(set(stated)) else None


def _item(service: str, line: LogRecord, version: str, reference: datetime) -> ChangeItem:
    excerpt = f"{service}: {line.message[:160]}"
    return ChangeItem(
        id=f"log-{service}-{version}",
        kind="deploy",
        service=service,
        time=line.ts,
        version=version,
        summary=f"first logged version {version}",
        seconds_before_onset=int((reference - line.ts).total_seconds()),
        evidence=EvidenceRef("log", log_cite(line.line), excerpt),
        from_logs=True,
    )


def unrecorded(inferred: Sequence[ChangeItem], recorded: Sequence[ChangeItem], slack: timedelta) -> list[ChangeItem]:
    """The deploys read from the logs that no recorded deploy of the same service within `slack` explains."""
    return [
        d
        for d in inferred
        if not any(c.service == d.service and c.kind == "deploy" and abs(c.time - d.time) <= slack for c in recorded)
    ]
