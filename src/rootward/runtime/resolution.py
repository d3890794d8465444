"""What a confirmed root cause teaches: a runbook draft for an approver, and the world model's dynamics.

Called after a responder accepts or corrects an RCA (the console's feedback
form) and when an incident is resolved with its confirmed root cause (console,
API, `rootward incidents resolve`). What is not a live incident teaches less:
a simulated one nothing at all (its cause is the simulator's, not this
system's), an imported or replayed one a runbook draft that a person still has
to accept, but never the dynamics of this system's world model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.proposal_state import describe_action
from rootward.store.investigations import InvestigationRow


@dataclass(frozen=True)
class Taught:
    draft: bool = False
    learned_trials: int = 0
    skipped: str = ""  # why nothing (or less) was learned


def _draft(
    sessions: sessionmaker[Session], row: InvestigationRow, entity: str, fault: str, note: str, llm: Any
) -> None:
    from rootward.engine.runbook_writer import draft_body
    from rootward.knowledge.drafts import ResolvedFindings, propose_draft

    result = row.investigation
    top = result.top
    assert top is not None
    fix = next((describe_action(p.action) for p in result.proposals), "")
    findings = ResolvedFindings(
        investigation_id=row.id,
        service=row.service,
        root_cause_entity=entity or top.entity,
        fault_type=fault or top.fault_type,
        symptom=row.title,
        evidence=tuple(result.cites_of(top.evidence)),
        fix=note or fix or "(not recorded)",
        closed_on=row.created_at.date(),
    )
    excerpts = {e.cite: e.excerpt for e in result.evidence.values()}
    body, prose = draft_body(findings, excerpts, llm)
    propose_draft(sessions, findings, body=body, prose=prose)


def teach_from_confirmed(
    sessions: sessionmaker[Session],
    investigation_id: str,
    entity: str,
    fault: str,
    *,
    note: str = "",
    by: str = "",
    llm: Any = None,
) -> Taught:
    """Draft a runbook addition and (for a live incident) learn the dynamics; empty entity/fault: the top's."""
    from rootward.runtime.learn_history import learn_from_investigation

    with sessions() as session:
        row = session.get(InvestigationRow, investigation_id)
        if row is not None:
            session.expunge(row)
    if row is None or row.investigation.top is None:
        return Taught(skipped="no hypothesis to confirm")
    if row.simulated:
        return Taught(skipped="a simulated incident teaches nothing about this system")
    top = row.investigation.top
    _draft(sessions, row, entity, fault, note, llm)
    if row.source != "live":
        return Taught(draft=True, skipped=f"an {row.source} incident does not teach this system's world model")
    trials = learn_from_investigation(sessions, investigation_id, entity or top.entity, fault or top.fault_type, by)
    return Taught(draft=True, learned_trials=trials)
