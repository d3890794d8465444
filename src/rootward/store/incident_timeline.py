"""An incident's timeline: its alerts, investigation steps, decisions, notifications and life-cycle changes.

Read from the tables each of them already lives in, merged by time. An
imported incident has no alerts table rows or steps; its timeline starts at
the investigation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootward.domain.proposal import ProposedAction
from rootward.domain.proposal_state import VIA_WORDS, describe_action
from rootward.store.alerts import AlertRow
from rootward.store.approvals import approvals_of
from rootward.store.incident_events import events_of
from rootward.store.investigations import InvestigationRow
from rootward.store.jobs import Checkpoint
from rootward.store.outbox import OutboxRow


@dataclass(frozen=True)
class TimelineEntry:
    at: datetime
    kind: str  # alert | step | investigation | approval | notification | acknowledged | assigned | resolved
    text: str
    by: str = ""


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _alerts(session: Session, row: InvestigationRow) -> list[TimelineEntry]:
    if not row.group_id:
        return []
    alerts = session.scalars(select(AlertRow).where(AlertRow.group_id == row.group_id))
    return [
        TimelineEntry(a.starts_at, "alert", f"{a.name} on {a.service} ({a.severity}, {a.status}, x{a.count})")
        for a in alerts
    ]


def _steps(session: Session, row: InvestigationRow) -> list[TimelineEntry]:
    if not row.job_id:
        return []
    query = select(Checkpoint).where(Checkpoint.job_id == row.job_id).order_by(Checkpoint.step_index)
    return [
        TimelineEntry(c.created_at, "step", f"step {c.step_name} done (worker {c.worker_id}, try {c.attempt})")
        for c in session.scalars(query)
    ]


def _decisions(session: Session, row: InvestigationRow) -> list[TimelineEntry]:
    entries = []
    for a in approvals_of(session, row.id):
        action = describe_action(ProposedAction.model_validate_json(a.action_json))
        entries.append(TimelineEntry(a.requested_at, "approval", f"approval requested: {action}"))
        if a.decided_at is not None:
            where = VIA_WORDS.get(a.decided_via or "", a.decided_via or "")
            entries.append(
                TimelineEntry(a.decided_at, "approval", f"{action}: {a.status} {where}".strip(), a.decided_by or "")
            )
    return entries


def _notifications(session: Session, row: InvestigationRow) -> list[TimelineEntry]:
    outbox = session.scalars(select(OutboxRow).where(OutboxRow.investigation_id == row.id))
    return [
        TimelineEntry(
            o.delivered_at or o.created_at,
            "notification",
            f"{o.channel}: {o.status}" + (f" ({o.last_error})" if o.last_error and o.status != "delivered" else ""),
        )
        for o in outbox
    ]


def timeline(session: Session, row: InvestigationRow) -> list[TimelineEntry]:
    """Everything that happened to the incident, oldest first."""
    entries = [TimelineEntry(row.created_at, "investigation", f"investigation recorded: {row.status}")]
    entries += _alerts(session, row) + _steps(session, row) + _decisions(session, row) + _notifications(session, row)
    entries += [TimelineEntry(e.at, e.kind, e.detail, e.by) for e in events_of(session, row.id)]
    return sorted(entries, key=lambda e: _aware(e.at))
