"""Handlers of the L2 safe actions that need the layers above `actions/`.

- `query_km`: search the knowledge base for the incident; the hits go into
  the notification as related knowledge (read-only).
- `route_to_km`: file the finished RCA into the knowledge base as an
  incident note (`incidents/<id>.md`), searchable at once for the next one.
- `retry_task`: queue a fresh investigation of the group when this one could
  not finish (engine failure or unavailable sources), at most once per group.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.safe import SafeAction, SafeActionHandler
from rootward.domain.investigation import InvestigationResult
from rootward.runtime.knowledge_snapshot import KnowledgeSnapshotter
from rootward.runtime.queue import enqueue_investigation
from rootward.store.jobs import Job

INCIDENT_NOTES_SOURCE = "rootward:incidents"


def query_km(snapshotter: KnowledgeSnapshotter) -> SafeActionHandler:
    def handle(action: SafeAction) -> str:
        index = snapshotter.index()
        if index is None:
            return "knowledge base is empty"
        hits = index.search(str(action.params.get("query", "")), services=list(action.params.get("services", [])), k=3)
        if not hits:
            return "no related knowledge"
        return "; ".join(f"{h.title or h.path} ({h.evidence.cite})" for h in hits)

    return handle


def incident_note(investigation_id: str, title: str, service: str, result: InvestigationResult) -> str:
    top = result.top
    lines = [
        "---",
        f"service: {service}",
        f"updated: {datetime.now(UTC).date().isoformat()}",
        "---",
        f"# {title}",
        "",
        f"Root cause: {top.entity if top else 'unknown'} {top.fault_type if top else ''} "
        f"({result.status}, confidence {top.confidence if top else 0.0:.2f}).",
        f"Investigation {investigation_id}.",
        "",
    ]
    lines += [f"- {c.text}" for c in result.claims]
    return "\n".join(lines) + "\n"


def route_to_km(sessions: sessionmaker[Session]) -> SafeActionHandler:
    def handle(action: SafeAction) -> str:
        from rootward.knowledge.ingest import ingest_files

        path = f"incidents/{action.params['investigation_id']}.md"
        note = incident_note(
            str(action.params["investigation_id"]),
            str(action.params.get("title", "")),
            str(action.params.get("service", "")),
            InvestigationResult.model_validate(action.params["result"]),  # the action's params are JSON
        )
        ingest_files(sessions, INCIDENT_NOTES_SOURCE, {path: note}, None, remove_missing=False)
        return f"filed as knowledge/{path}"

    return handle


def retry_task(sessions: sessionmaker[Session]) -> SafeActionHandler:
    def handle(action: SafeAction) -> str:
        group_id = str(action.params["group_id"])
        with sessions() as session, session.begin():
            jobs = int(session.scalar(select(func.count()).select_from(Job).where(Job.group_id == group_id)) or 0)
            if jobs > 1:
                return f"not retried: group {group_id} was already retried"
            job_id = enqueue_investigation(
                session, group_id, int(action.params.get("priority", 2)), str(action.params.get("tier", "L2"))
            )
        return f"queued investigation {job_id} again for group {group_id}"

    return handle
