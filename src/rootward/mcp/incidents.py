"""What the MCP tools return, and the store reads behind them: typed records, never raw rows.

Each record is a pydantic model, so the SDK publishes its JSON schema as the
tool's output schema and a client (or a test) gets structured content, not
prose to parse.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from rootward.domain.evidence import EvidenceKind
from rootward.domain.investigation import Claim, InvestigationResult
from rootward.engine.followup_answer import answer_followup
from rootward.engine.followup_context import context_of
from rootward.engine.rca import render_markdown
from rootward.llm.client import LLMClient
from rootward.store.investigations import IncidentFilter, InvestigationRow, list_investigations

MIN_PREFIX = 6  # an id prefix shorter than this is too likely to match several incidents


class IncidentSummary(BaseModel):
    id: str
    title: str
    service: str
    severity: str
    tier: str
    status: str = Field(description="validated | inconclusive | failed")
    top_entity: str = Field(description="The leading hypothesis's entity ('' when there is none)")
    top_fault: str
    confidence: float | None
    created_at: str = Field(description="ISO 8601, UTC")
    console_url: str = ""


class IncidentList(BaseModel):
    incidents: list[IncidentSummary]


class HypothesisBrief(BaseModel):
    id: str
    entity: str
    fault_type: str
    status: str
    confidence: float
    evidence: list[str]


class Rca(BaseModel):
    id: str = Field(description="Investigation id ('' for a bundle investigated and not stored)")
    title: str
    status: str
    summary_source: str = Field(description="Who wrote the claims: llm | rule | template")
    claims: list[Claim]
    hypotheses: list[HypothesisBrief]
    gaps: list[str]
    markdown: str = Field(description="The RCA as rootward show prints it, every claim with its evidence ids")
    console_url: str = ""


class EvidenceOut(BaseModel):
    id: str
    kind: EvidenceKind
    cite: str = Field(description="Where it comes from: a bundle cite form or the live query that produced it")
    excerpt: str
    data: dict[str, Any] | None = Field(
        default=None, description="The raw data behind the cite when it was kept (series, log lines, diff, chunk)"
    )


class EvidenceList(BaseModel):
    investigation_id: str
    items: list[EvidenceOut]
    unknown: list[str] = Field(default_factory=list, description="Asked-for ids this investigation does not hold")


class AnswerOut(BaseModel):
    investigation_id: str
    question: str
    answer: str = Field(description="From the investigation's own claims and evidence, with the ids it rests on")
    evidence: list[EvidenceOut]
    cites: list[str] = Field(
        default_factory=list, description="Cites of the incident's data the RCA did not cite (e.g. changes.json:<id>)"
    )
    source: Literal["rule", "llm"] = Field(
        default="rule", description="Who wrote the answer: rule | llm (its cites checked by code)"
    )
    note: str = Field(default="", description="With a model configured: what it was shown, or why rule mode answered")


def find_investigation(session: Session, investigation_id: str) -> InvestigationRow | None:
    """The stored investigation by id, or by a unique prefix of at least MIN_PREFIX characters."""
    row = session.get(InvestigationRow, investigation_id)
    if row is None and len(investigation_id) >= MIN_PREFIX:
        rows = session.scalars(
            select(InvestigationRow).where(InvestigationRow.id.startswith(investigation_id)).limit(2)
        ).all()
        row = rows[0] if len(rows) == 1 else None
    return row


def incident_link(console_url: str, investigation_id: str) -> str:
    return f"{console_url.rstrip('/')}/incidents/{investigation_id}" if console_url and investigation_id else ""


def incidents(session: Session, flt: IncidentFilter, *, limit: int, console_url: str = "") -> IncidentList:
    return IncidentList(
        incidents=[
            IncidentSummary(
                id=row.id,
                title=row.title,
                service=row.service,
                severity=row.severity,
                tier=row.tier,
                status=row.status,
                top_entity=row.top_entity,
                top_fault=row.top_fault,
                confidence=row.confidence,
                created_at=row.created_at.isoformat(),
                console_url=incident_link(console_url, row.id),
            )
            for row in list_investigations(session, flt, limit=limit)
        ]
    )


def rca_of(result: InvestigationResult, *, investigation_id: str, title: str, console_url: str = "") -> Rca:
    return Rca(
        id=investigation_id,
        title=title,
        status=result.status,
        summary_source=result.summary_source,
        claims=list(result.claims),
        hypotheses=[
            HypothesisBrief(
                id=h.id,
                entity=h.entity,
                fault_type=h.fault_type,
                status=h.status,
                confidence=h.confidence,
                evidence=list(h.evidence),
            )
            for h in result.hypotheses
        ],
        gaps=list(result.gaps),
        markdown=render_markdown(result),
        console_url=incident_link(console_url, investigation_id),
    )


def evidence_of(row: InvestigationRow, ids: list[str] | None = None) -> EvidenceList:
    """The evidence items of `ids` (all when None or empty), with the raw data kept behind each."""
    result = row.investigation
    wanted = ids or list(result.evidence)
    data = row.evidence_data or {}
    items = [
        EvidenceOut(
            id=eid,
            kind=result.evidence[eid].kind,
            cite=result.evidence[eid].cite,
            excerpt=result.evidence[eid].excerpt,
            data=data.get(eid),
        )
        for eid in wanted
        if eid in result.evidence
    ]
    return EvidenceList(investigation_id=row.id, items=items, unknown=[e for e in wanted if e not in result.evidence])


def ask_about(
    row: InvestigationRow, question: str, *, client: LLMClient | None = None, variant: str = "control"
) -> AnswerOut:
    """A follow-up answered from the investigation's evidence (`engine/followup_answer.py`: by the model of
    `client`, else in rule mode), with what it cites."""
    context = context_of(row.bundle_path)
    reply = answer_followup(row.investigation, question, context, client=client, severity=row.severity, variant=variant)
    cited = evidence_of(row, list(reply.evidence)).items if reply.evidence else []
    return AnswerOut(
        investigation_id=row.id,
        question=question,
        answer=reply.text,
        evidence=cited,
        cites=list(reply.cites),
        source=reply.source,
        note=reply.note,
    )
