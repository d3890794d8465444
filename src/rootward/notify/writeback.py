"""Write-back: the RCA summary and a console link, back where the incident is tracked.

A write-back is an outbox message on a target's own channel (`pagerduty`,
`jira`, `github`), so a target that is down gets it when it returns and a
delivered one is never sent again (the outbox row's key). Where it goes
comes from the alert group, read when the investigation is posted and
carried in the message (`WritebackRefs`):

- the PagerDuty incidents its alerts came from (intake sets the
  `pagerduty_incident` annotation, ingest/pagerduty.py): one note each, each
  its own outbox row, so a failure on one never re-posts the other;
- a Jira issue or GitHub issue named by an alert label or annotation
  (`notify.jira.issue_label`, `notify.github.issue_label`), else the one
  rootward created for this incident (the alert group), else a new one if
  the target is configured to create issues (notify/issues.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from rootward.notify.message import Notification

WRITEBACK_KEY = "writeback"  # Notification.extra key of the refs
PAGERDUTY_ANNOTATION = "pagerduty_incident"
MAX_CITES = 6


@dataclass(frozen=True)
class WritebackRefs:
    """Where the write-back goes: the incident (alert group) and the tickets its alerts name."""

    incident: str
    pagerduty_incidents: tuple[str, ...] = ()
    pagerduty_incident: str = ""  # the one PagerDuty incident of one note
    jira_issue: str = ""
    github_issue: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "incident": self.incident,
            "pagerduty_incidents": list(self.pagerduty_incidents),
            "pagerduty_incident": self.pagerduty_incident,
            "jira_issue": self.jira_issue,
            "github_issue": self.github_issue,
        }


def _first(alerts: list[tuple[Mapping[str, Any], Mapping[str, Any]]], name: str) -> str:
    if not name:
        return ""
    for labels, notes in alerts:
        value = labels.get(name) or notes.get(name)
        if value:
            return str(value).strip()
    return ""


def refs_from_alerts(
    incident: str,
    alerts: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]],
    *,
    jira_label: str = "",
    github_label: str = "",
) -> WritebackRefs:
    """The refs of an alert group from its alerts' (labels, annotations), first seen first."""
    rows = list(alerts)
    pagerduty: list[str] = []
    for _labels, notes in rows:
        found = str(notes.get(PAGERDUTY_ANNOTATION) or "").strip()
        if found and found not in pagerduty:
            pagerduty.append(found)
    return WritebackRefs(
        incident=incident,
        pagerduty_incidents=tuple(pagerduty),
        jira_issue=_first(rows, jira_label),
        github_issue=_first(rows, github_label),
    )


def with_refs(notification: Notification, refs: WritebackRefs) -> Notification:
    return replace(notification, extra={**notification.extra, WRITEBACK_KEY: refs.to_dict()})


def refs_of(notification: Notification) -> WritebackRefs:
    raw = notification.extra.get(WRITEBACK_KEY)
    if not isinstance(raw, dict):
        return WritebackRefs(incident=notification.investigation_id)
    return WritebackRefs(
        incident=str(raw.get("incident") or notification.investigation_id),
        pagerduty_incidents=tuple(str(i) for i in raw.get("pagerduty_incidents") or ()),
        pagerduty_incident=str(raw.get("pagerduty_incident") or ""),
        jira_issue=str(raw.get("jira_issue") or ""),
        github_issue=str(raw.get("github_issue") or ""),
    )


def marker(notification: Notification) -> str:
    """The last line of every write-back: names the investigation, so a reader (or a script) can find it."""
    return f"rootward investigation {notification.investigation_id}"


def writeback_title(notification: Notification) -> str:
    return f"[{notification.tier}] {notification.title}"[:250]


def writeback_text(notification: Notification) -> str:
    """The RCA summary, its evidence and the console link as plain lines (PagerDuty, Jira and GitHub show it as is)."""
    lines = [f"rootward RCA: {writeback_title(notification)}"]
    if notification.headline is not None:
        lines += notification.headline.lines()
    lines += ["", notification.summary]
    if notification.summary_source != "template":
        lines.append(f"(summary by {notification.summary_source})")
    if notification.evidence:
        lines += ["", "Evidence: " + "; ".join(notification.evidence[:MAX_CITES])]
    if notification.suggested_actions:
        lines += ["", "Awaiting approval: " + "; ".join(notification.suggested_actions)]
    if notification.console_url:
        lines += ["", f"Console: {notification.console_url}"]
    lines += ["", marker(notification)]
    return "\n".join(lines)
