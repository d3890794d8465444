"""`rootward demo --purge`: remove every simulated incident and all that hangs off it.

The demo's incidents are made by the simulator; an operator who has seen enough
removes them without touching a live incident. Investigations marked
`simulated` go, with their alerts and groups, jobs and checkpoints, findings,
feedback, approvals, notifications, model calls, proposals, runbook drafts,
life-cycle events and the knowledge-base notes filed for them (before the demo
was kept out of the knowledge base). The audit chain is append-only: it keeps
its rows and records the purge with its counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from rootward.store.alerts import AlertGroupRow, AlertRow, RoutingDecisionRow
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import append_audit
from rootward.store.findings import FindingRow
from rootward.store.incident_events import IncidentEventRow
from rootward.store.investigations import FeedbackRow, InvestigationRow
from rootward.store.jobs import Checkpoint, Job
from rootward.store.knowledge import KnowledgeChunkRow, KnowledgeDocumentRow, RunbookDraftRow
from rootward.store.llm_calls import LLMCallRow
from rootward.store.outbox import OutboxRow
from rootward.store.worldmodel import WmProposalRow

INCIDENT_NOTES_SOURCE = "rootward:incidents"  # where the act step files RCAs (runtime/act_step.py)
REPLAY_ANNOTATION = "rootward_bundle"  # the alert annotation naming a replayed bundle (sources/replay.py)


@dataclass
class PurgeCounts:
    investigations: int = 0
    rows: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        others = ", ".join(f"{n} {table}" for table, n in sorted(self.rows.items()) if n)
        return f"{self.investigations} simulated incidents purged" + (f" ({others})" if others else "")


def _simulated_groups(session: Session, simulated_dirs: Sequence[Path]) -> set[str]:
    """Alert groups whose alerts name a bundle of the simulator (queued, not investigated yet, included)."""
    roots = [d.resolve() for d in simulated_dirs]
    groups = set()
    for group_id, notes in session.execute(select(AlertRow.group_id, AlertRow.annotations)):
        named = (notes or {}).get(REPLAY_ANNOTATION)
        if named and any(Path(str(named)).resolve().is_relative_to(root) for root in roots):
            groups.add(group_id)
    return groups


def purge_simulated(session: Session, simulated_dirs: Sequence[Path] = ()) -> PurgeCounts:
    """Delete simulated incidents, and the alert groups of `simulated_dirs`' bundles with their jobs."""
    rows = session.execute(
        select(InvestigationRow.id, InvestigationRow.job_id, InvestigationRow.group_id).where(
            InvestigationRow.source == "simulated"
        )
    ).all()
    ids = [r.id for r in rows]
    jobs = [r.job_id for r in rows if r.job_id]
    groups = sorted({r.group_id for r in rows if r.group_id} | _simulated_groups(session, simulated_dirs))
    counts = PurgeCounts(investigations=len(ids))
    if not ids and not groups:
        return counts

    def gone(table: str, statement: Any) -> None:
        counts.rows[table] = counts.rows.get(table, 0) + int(getattr(session.execute(statement), "rowcount", 0) or 0)

    notes = [f"incidents/{i}.md" for i in ids]
    documents = select(KnowledgeDocumentRow.id).where(
        KnowledgeDocumentRow.source == INCIDENT_NOTES_SOURCE, KnowledgeDocumentRow.path.in_(notes)
    )
    gone("kb_chunks", delete(KnowledgeChunkRow).where(KnowledgeChunkRow.document_id.in_(documents)))
    gone("kb_documents", delete(KnowledgeDocumentRow).where(KnowledgeDocumentRow.id.in_(documents)))
    for model in (
        FeedbackRow,
        FindingRow,
        ApprovalRow,
        LLMCallRow,
        OutboxRow,
        WmProposalRow,
        RunbookDraftRow,
        IncidentEventRow,
    ):
        gone(model.__tablename__, delete(model).where(model.investigation_id.in_(ids)))
    job_ids = select(Job.id).where(Job.id.in_(jobs) | Job.group_id.in_(groups))
    gone("investigation_checkpoints", delete(Checkpoint).where(Checkpoint.job_id.in_(job_ids)))
    gone("investigation_jobs", delete(Job).where(Job.id.in_(jobs) | Job.group_id.in_(groups)))
    gone("routing_decisions", delete(RoutingDecisionRow).where(RoutingDecisionRow.group_id.in_(groups)))
    gone("alerts", delete(AlertRow).where(AlertRow.group_id.in_(groups)))
    gone("alert_groups", delete(AlertGroupRow).where(AlertGroupRow.id.in_(groups)))
    gone("investigations", delete(InvestigationRow).where(InvestigationRow.id.in_(ids)))
    counts.rows.pop("investigations", None)
    append_audit(session, "demo.purged", "demo", {"investigations": len(ids), **counts.rows})
    return counts
