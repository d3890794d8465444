"""Recent changes (deploys, config, infra, flags) of the entities under investigation."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel

from rootward.domain.evidence import EvidenceRef, change_cite
from rootward.domain.telemetry import Change
from rootward.sources.base import ChangeSource

DEFAULT_LOOKBACK = timedelta(hours=72)


class ChangeItem(BaseModel):
    id: str
    kind: str
    service: str
    time: datetime
    version: str = ""
    summary: str = ""
    diff: str = ""
    seconds_before_onset: int  # negative when the change came after the onset
    evidence: EvidenceRef
    # Read from a version the service's lines first state (`context.log_deploys`), not from the change
    # source: it says nothing of services that print no version, so it is no change history.
    from_logs: bool = False


def change_items(changes: Sequence[Change], reference: datetime) -> list[ChangeItem]:
    """Changes as context items, nearest to `reference` (the onset) first."""
    items = [
        ChangeItem(
            id=c.id,
            kind=c.kind,
            service=c.service,
            time=c.time,
            version=c.version,
            summary=c.summary,
            diff=c.diff,
            seconds_before_onset=int((reference - c.time).total_seconds()),
            evidence=EvidenceRef("change", change_cite(c.id), _excerpt(c)),
        )
        for c in changes
    ]
    return sorted(items, key=lambda i: (abs(i.seconds_before_onset), i.id))


def recent_changes(
    source: ChangeSource,
    services: Sequence[str] | None,
    reference: datetime,
    until: datetime,
    lookback: timedelta = DEFAULT_LOOKBACK,
) -> list[ChangeItem]:
    """Changes of `services` in the `lookback` before `until`; raises SourceUnavailable like the source."""
    return change_items(source.recent(services, reference - lookback, until), reference)


def _excerpt(c: Change) -> str:
    head = f"{c.kind} {c.id} on {c.service} at {c.time.strftime('%H:%M')}"
    if c.version:
        head += f" ({c.version})"
    if c.summary:
        head += f": {c.summary}"
    if c.diff:
        head += " | diff: " + c.diff.replace("\n", " ")[:160]
    return head
