"""Re-investigate a stored incident on fresh data: a new investigation of the same alert group.

After a source is fixed (a label mapping, a dead Loki) the first RCA stays as
it was, and a new job runs the whole pipeline again: a new snapshot of the
live sources for the group's alerts, a new investigation with its own id. The
two are linked by their alert group (the console lists every investigation of
a group) and by the audit trail, which names who asked and what was re-run.
"""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.alert import Severity
from rootward.runtime.queue import enqueue_investigation
from rootward.store.alerts import AlertGroupRow
from rootward.store.audit import append_audit
from rootward.store.investigations import InvestigationRow


class CannotRerun(LookupError):
    """The investigation has no alert group to investigate again (or does not exist)."""


class NoSuchInvestigation(CannotRerun):
    pass


def rerun_investigation(sessions: sessionmaker[Session], investigation_id: str, *, by: str) -> str:
    """Queue a new investigation of the group behind `investigation_id`; returns the new job (and investigation) id."""
    with sessions() as session, session.begin():
        row = session.get(InvestigationRow, investigation_id)
        if row is None:
            raise NoSuchInvestigation(f"no investigation {investigation_id}")
        group = session.get(AlertGroupRow, row.group_id) if row.group_id else None
        if group is None:
            raise CannotRerun(
                f"investigation {investigation_id} has no alert group (imported from a bundle): "
                "run `rootward investigate BUNDLE` instead"
            )
        job_id = enqueue_investigation(session, group.id, Severity(group.severity).rank, group.tier)
        group.investigation_job_id = job_id
        append_audit(session, "investigation.rerun", job_id, {"rerun_of": investigation_id, "by": by})
    return job_id


def investigations_of_group(session: Session, group_id: str | None) -> list[InvestigationRow]:
    """Every investigation of one alert group, oldest first (an incident and its re-runs)."""
    if not group_id:
        return []
    from sqlalchemy import select

    query = select(InvestigationRow).where(InvestigationRow.group_id == group_id).order_by(InvestigationRow.created_at)
    return list(session.scalars(query))
