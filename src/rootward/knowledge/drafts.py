"""Self-updating runbooks: a resolved investigation's findings become a proposed runbook addition.

The draft is a structured template (symptom, evidence, root cause, fix)
rendered from a typed input, so it can be reviewed line by line and never
invents a step; with a model configured, `engine.runbook_writer` adds a
marked, cited summary below the template's facts. It waits as a proposal until an
approver accepts it (then it is appended to the runbook, or becomes a new
one, and is re-indexed at once) or rejects it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.knowledge.embeddings import Embedder
from rootward.knowledge.ingest import IngestReport, ingest_files
from rootward.store.ids import new_id
from rootward.store.knowledge import (
    KnowledgeDocumentRow,
    RunbookDraftRow,
    find_documents_by_path,
)

DRAFTS_SOURCE = "drafts"  # where accepted drafts for runbooks that did not exist yet are stored
_TEMPLATES = Environment(
    loader=FileSystemLoader(str(Path(__file__).parent / "templates")),
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
)


@dataclass(frozen=True)
class ResolvedFindings:
    """What a closed, resolved investigation established (the typed input of a draft)."""

    investigation_id: str
    service: str  # the alerting service
    root_cause_entity: str
    fault_type: str  # closed vocabulary of the bundle spec
    symptom: str
    evidence: tuple[str, ...]  # cites, e.g. "metrics.csv:payment/db_connections_in_use@..."
    fix: str
    closed_on: date | None = None


class DraftError(ValueError):
    """The draft does not exist or was already decided."""


def runbook_path_for(entity: str, fault_type: str) -> str:
    return f"runbooks/{entity}-{fault_type.replace('_', '-')}.md"


def render_addition(findings: ResolvedFindings) -> str:
    return _TEMPLATES.get_template("runbook_addition.md.j2").render(
        f=findings, fault_human=findings.fault_type.replace("_", " ")
    )


def render_new_runbook(findings: ResolvedFindings, addition: str, today: date) -> str:
    return _TEMPLATES.get_template("runbook_new.md.j2").render(
        f=findings, fault_human=findings.fault_type.replace("_", " "), addition=addition, today=today.isoformat()
    )


def propose_draft(
    sessions: sessionmaker[Session], findings: ResolvedFindings, *, body: str | None = None, prose: str = "template"
) -> str:
    """Store a proposed runbook addition for the findings; returns the draft id.

    `body` is the addition when a writer above this layer (a model) extended
    the template; `prose` records who wrote it, so a reviewer knows.
    """
    draft_id = new_id()
    finding = asdict(findings)
    finding["evidence"] = list(findings.evidence)
    finding["closed_on"] = findings.closed_on.isoformat() if findings.closed_on else None
    finding["prose"] = prose
    with sessions.begin() as session:
        session.add(
            RunbookDraftRow(
                id=draft_id,
                status="proposed",
                investigation_id=findings.investigation_id,
                service=findings.service,
                fault_type=findings.fault_type,
                target_path=runbook_path_for(findings.root_cause_entity, findings.fault_type),
                body=body if body is not None else render_addition(findings),
                finding=finding,
            )
        )
    return draft_id


def list_drafts(sessions: sessionmaker[Session], status: str | None = None) -> list[RunbookDraftRow]:
    with sessions() as session:
        query = select(RunbookDraftRow).order_by(RunbookDraftRow.created_at)
        if status:
            query = query.where(RunbookDraftRow.status == status)
        return list(session.scalars(query))


def _decide(session: Session, draft_id: str, status: str, approver: str, note: str) -> RunbookDraftRow:
    draft = session.get(RunbookDraftRow, draft_id)
    if draft is None:
        raise DraftError(f"no draft {draft_id}")
    if draft.status != "proposed":
        raise DraftError(f"draft {draft_id} is already {draft.status}")
    draft.status, draft.decided_by, draft.note = status, approver, note
    draft.decided_at = datetime.now(UTC)
    return draft


def reject_draft(sessions: sessionmaker[Session], draft_id: str, approver: str, note: str = "") -> None:
    with sessions.begin() as session:
        _decide(session, draft_id, "rejected", approver, note)


def _append(raw: str, addition: str) -> str:
    return raw.rstrip("\n") + "\n\n" + addition


def accept_draft(
    sessions: sessionmaker[Session],
    draft_id: str,
    approver: str,
    embedder: Embedder | None,
    *,
    today: date | None = None,
) -> IngestReport:
    """Write the addition into its runbook (every copy, and the file on disk when the source is a
    directory), re-chunk and re-embed it now; the caller reloads its index from the store."""
    today = today or date.today()
    with sessions.begin() as session:
        draft = _decide(session, draft_id, "accepted", approver, "")
        targets: Sequence[KnowledgeDocumentRow] = find_documents_by_path(session, draft.target_path)
        updates = [(row.source, _append(row.raw, draft.body)) for row in targets]
        if not updates:
            finding = dict(draft.finding)
            finding.pop("prose", None)
            finding["evidence"] = tuple(finding.get("evidence", ()))
            closed = finding.get("closed_on")
            finding["closed_on"] = date.fromisoformat(closed) if closed else None
            new = render_new_runbook(ResolvedFindings(**finding), draft.body, today)
            updates = [(DRAFTS_SOURCE, new)]
        target = draft.target_path
    report = IngestReport(source="")
    for source, raw in updates:
        directory = Path(source)
        if source != DRAFTS_SOURCE and directory.is_dir():
            (directory / target).write_text(raw, encoding="utf-8")
        step = ingest_files(sessions, source, {target: raw}, embedder, remove_missing=False)
        report.source = source
        report.added += step.added
        report.changed += step.changed
        report.embedded_chunks += step.embedded_chunks
        report.degraded = report.degraded or step.degraded
        report.seconds += step.seconds
    return report
