"""The handlers of the L2 safe actions, built for one investigation.

What a handler needs from the layers above `actions/` (the knowledge index,
filing a note into the knowledge base, queueing an investigation) it gets
through `SafeActionContext`, which the runtime fills; the handlers themselves
(what is searched, what the note says, when a retry is refused) live here.

- `silence_alert`: a real Alertmanager silence with an expiry (only with an
  `actions.alertmanager` configured).
- `annotate`, `flag_for_human_review`: a note in the audit trail.
- `query_km`: search the knowledge base for the incident; the hits go into
  the notification as related knowledge (read-only).
- `route_to_km`: file the finished RCA into the knowledge base as an incident
  note (`incidents/<id>.md`), searchable at once for the next one.
- `retry_task`: queue a fresh investigation of the group when this one could
  not finish, at most once per group.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.alertmanager import AlertmanagerClient
from rootward.actions.safe import SafeAction, SafeActionHandler, SilenceHandler
from rootward.actions.settings import ActionsSettings
from rootward.domain.evidence import EvidenceRef
from rootward.domain.investigation import InvestigationResult
from rootward.store.audit import append_audit
from rootward.store.jobs import Job


class RelatedDocument(Protocol):
    @property
    def title(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def evidence(self) -> EvidenceRef: ...


class KnowledgeSearch(Protocol):
    def search(self, query: str, *, services: Sequence[str] = ..., k: int = ...) -> Sequence[RelatedDocument]: ...


@dataclass(frozen=True)
class SafeActionContext:
    """One investigation's handles on the world, for the handlers of its safe actions."""

    investigation_id: str
    settings: ActionsSettings
    sessions: sessionmaker[Session]
    knowledge: Callable[[], KnowledgeSearch | None]  # the knowledge index; None while it is empty
    file_note: Callable[[str, str], None]  # (path, Markdown) into the knowledge base
    requeue: Callable[[Session, str, int, str], str]  # (session, group, priority, tier) -> job id


def silence_alert(ctx: SafeActionContext) -> SafeActionHandler | None:
    alertmanager = ctx.settings.alertmanager
    return SilenceHandler(AlertmanagerClient(alertmanager)) if alertmanager is not None else None


def audit_note(kind: str) -> Callable[[SafeActionContext], SafeActionHandler]:
    """A safe action that is a note in the audit trail (`safe_action.<kind>`)."""

    def build(ctx: SafeActionContext) -> SafeActionHandler:
        def handle(action: SafeAction) -> str:
            with ctx.sessions() as session, session.begin():
                data = {"params": action.params, "reason": action.reason}
                append_audit(session, f"safe_action.{kind}", ctx.investigation_id, data)
            return action.reason or kind

        return handle

    return build


def query_km(ctx: SafeActionContext) -> SafeActionHandler:
    def handle(action: SafeAction) -> str:
        index = ctx.knowledge()
        if index is None:
            return "knowledge base is empty"
        services = list(action.params.get("services", []))
        hits = index.search(str(action.params.get("query", "")), services=services, k=3)
        if not hits:
            return "no related knowledge"
        return "; ".join(f"{h.title or h.path} ({h.evidence.cite})" for h in hits)

    return handle


def incident_note(investigation_id: str, title: str, service: str, result: InvestigationResult) -> str:
    """The knowledge-base note of a finished RCA: its root cause, and its claims."""
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


def route_to_km(ctx: SafeActionContext) -> SafeActionHandler:
    def handle(action: SafeAction) -> str:
        investigation_id = str(action.params["investigation_id"])
        path = f"incidents/{investigation_id}.md"
        note = incident_note(
            investigation_id,
            str(action.params.get("title", "")),
            str(action.params.get("service", "")),
            InvestigationResult.model_validate(action.params["result"]),  # the action's params are JSON
        )
        ctx.file_note(path, note)
        return f"filed as knowledge/{path}"

    return handle


def retry_task(ctx: SafeActionContext) -> SafeActionHandler:
    def handle(action: SafeAction) -> str:
        group_id = str(action.params["group_id"])
        with ctx.sessions() as session, session.begin():
            jobs = int(session.scalar(select(func.count()).select_from(Job).where(Job.group_id == group_id)) or 0)
            if jobs > 1:
                return f"not retried: group {group_id} was already retried"
            priority, tier = int(action.params.get("priority", 2)), str(action.params.get("tier", "L2"))
            job_id = ctx.requeue(session, group_id, priority, tier)
        return f"queued investigation {job_id} again for group {group_id}"

    return handle
