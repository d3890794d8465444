"""Queueing the write-backs of a posted investigation, beside its chat message, in the same transaction.

Each configured target that the alert group gives something to write to
gets outbox rows keyed by the investigation (one per PagerDuty incident), so
a re-run notify step queues nothing twice.
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootward.notify.message import Notification
from rootward.notify.outbox import enqueue
from rootward.notify.settings import NotifySettings
from rootward.notify.writeback import WritebackRefs, refs_from_alerts, with_refs
from rootward.store.alerts import AlertRow


def group_refs(session: Session, group_id: str, settings: NotifySettings) -> WritebackRefs:
    """What the group's alerts name: their PagerDuty incidents and the Jira / GitHub issue labels."""
    if settings.pagerduty is None and settings.jira is None and settings.github is None:
        return WritebackRefs(incident=group_id)  # no target: nothing to read
    rows = session.scalars(select(AlertRow).where(AlertRow.group_id == group_id).order_by(AlertRow.starts_at))
    return refs_from_alerts(
        group_id,
        ((r.labels or {}, r.annotations or {}) for r in rows),
        jira_label=settings.jira.issue_label if settings.jira else "",
        github_label=settings.github.issue_label if settings.github else "",
    )


def enqueue_writebacks(
    session: Session, notification: Notification, refs: WritebackRefs, settings: NotifySettings, *, key: str
) -> list[str]:
    """Queue the write-backs; returns the targets that got at least one row."""
    note = with_refs(notification, refs)
    queued = []
    if settings.pagerduty is not None and settings.pagerduty.writes_back(refs):
        for incident in refs.pagerduty_incidents:
            one = with_refs(note, replace(refs, pagerduty_incident=incident))
            enqueue(session, one, ["pagerduty"], key=f"{key}:pagerduty:{incident}")
        queued.append("pagerduty")
    for name, target in (("jira", settings.jira), ("github", settings.github)):
        if target is not None and target.writes_back(refs):
            enqueue(session, note, [name], key=key)
            queued.append(name)
    return queued
