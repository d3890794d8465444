"""What the incident page shows, read once per request: the result, its headline, one state per proposal.

Every post of the page (approve, reject, feedback, ask) renders the same page
again when it is refused, with the refusal beside the form that caused it and
the status code the API gives for the same refusal, so the console never drops
its user on a raw JSON error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import HTTPException, Request
from sqlalchemy import select

from rootward.domain.headline import headline, hypothesis_label
from rootward.domain.proposal_state import ApprovalFacts, ProposalState, proposal_states
from rootward.runtime.rerun import investigations_of_group
from rootward.store.approvals import approval_facts, approvals_of
from rootward.store.findings import FindingRow
from rootward.store.incident_timeline import timeline
from rootward.store.investigations import FeedbackRow, InvestigationRow
from rootward.web.charts import metric_svg


@dataclass(frozen=True)
class FormError:
    """A refused post, shown inline: which form (`feedback`, `ask`, `approval-<id>`), why, and its status."""

    form: str
    message: str
    status: int


def _tested_by(session: Any, investigation_id: str) -> dict[str, set[str]]:
    tested: dict[str, set[str]] = {}
    query = select(FindingRow.hypothesis_id, FindingRow.specialist).where(
        FindingRow.investigation_id == investigation_id
    )
    for hypothesis_id, specialist in session.execute(query):
        tested.setdefault(hypothesis_id, set()).add(specialist)
    return tested


def proposal_view(request: Request, row: InvestigationRow, approvals: list[ApprovalFacts]) -> list[ProposalState]:
    """The result's proposals joined with their approval requests, and what the executor can run."""
    verbs = request.app.state.settings.actions.executor.runnable_verbs()
    return proposal_states(row.investigation.proposals, approvals, verbs)


def summary(request: Request, investigation_id: str) -> dict[str, Any]:
    """The API's view of one investigation: what it is about, its headline card, each proposal's one status."""
    with request.app.state.sessions() as session:
        row = session.get(InvestigationRow, investigation_id)
        if row is None:
            raise HTTPException(404, f"no investigation {investigation_id}")
        approvals = [approval_facts(a) for a in approvals_of(session, investigation_id)]
        timeline_entries = timeline(session, row)
    states = proposal_view(request, row, approvals)
    return {
        "id": row.id,
        "title": row.title,
        "service": row.service,
        "severity": row.severity,
        "status": row.status,
        "source": row.source,
        "state": row.state,
        "assignee": row.assignee,
        "resolved_root_cause": {"entity": row.resolved_entity, "fault_type": row.resolved_fault}
        if row.state == "resolved"
        else None,
        "timeline": [{"at": e.at.isoformat(), "kind": e.kind, "text": e.text, "by": e.by} for e in timeline_entries],
        "headline": headline(row.investigation, states[0] if states else None).model_dump(mode="json"),
        "proposals": [s.to_json() for s in states],
    }


def incident_context(request: Request, investigation_id: str) -> dict[str, Any]:
    """Everything incident.html renders, or a 404 for an unknown id."""
    with request.app.state.sessions() as session:
        row = session.get(InvestigationRow, investigation_id)
        if row is None:
            raise HTTPException(404, f"no investigation {investigation_id}")
        approvals = [approval_facts(a) for a in approvals_of(session, investigation_id)]
        feedback = list(
            session.scalars(
                select(FeedbackRow)
                .where(FeedbackRow.investigation_id == investigation_id)
                .order_by(FeedbackRow.created_at)
            )
        )
        tested_by = _tested_by(session, investigation_id)
        events = timeline(session, row)
        siblings = investigations_of_group(session, row.group_id)
    result = row.investigation
    for h in result.hypotheses if tested_by else []:
        h.specialists = sorted(tested_by.get(h.id, set()))  # type: ignore[attr-defined]
    states = proposal_view(request, row, approvals)
    data = row.evidence_data or {}
    charts = {
        eid: metric_svg(d, result.evidence[eid].cite) for eid, d in data.items() if "t" in d and eid in result.evidence
    }
    return {
        "row": row,
        "result": result,
        "card": headline(result, states[0] if states else None),
        "labels": [hypothesis_label(result, i) for i in range(len(result.hypotheses))],
        "states": states,
        "data": data,
        "charts": charts,
        "feedback": feedback,
        "trace": result.trace,
        "timeline": events,
        "siblings": siblings,
        "rerun_queued": request.query_params.get("rerun", ""),
    }
