"""Working memory in the database: the findings of an investigation's specialists.

The same `WorkingMemory` protocol as the in-memory one, so a worker that
resumes an investigation after a crash reads back every finding the previous
worker wrote, and the web console and `rootward show` can list them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import DateTime, Float, Index, Integer, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.domain.evidence import EvidenceRef
from rootward.domain.investigation import Finding
from rootward.store.base import Base


class FindingRow(Base):
    __tablename__ = "engine_findings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    investigation_id: Mapped[str] = mapped_column(String(128))
    hypothesis_id: Mapped[str] = mapped_column(String(32))
    specialist: Mapped[str] = mapped_column(String(64), default="")
    status: Mapped[str] = mapped_column(String(16))
    confidence: Mapped[float] = mapped_column(Float)
    summary: Mapped[str] = mapped_column(Text, default="")
    evidence_json: Mapped[str] = mapped_column(Text, default="[]")
    tool_calls_json: Mapped[str] = mapped_column(Text, default="[]")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_engine_findings_investigation", "investigation_id", "hypothesis_id"),)


def _row(investigation_id: str, f: Finding) -> FindingRow:
    return FindingRow(
        investigation_id=investigation_id,
        hypothesis_id=f.hypothesis_id,
        specialist=f.specialist,
        status=f.status,
        confidence=f.confidence,
        summary=f.summary,
        evidence_json=json.dumps([{"kind": e.kind, "cite": e.cite, "excerpt": e.excerpt} for e in f.evidence]),
        tool_calls_json=json.dumps(list(f.tool_calls)),
        created_at=datetime.now(UTC),
    )


def _finding(row: FindingRow) -> Finding:
    return Finding(
        hypothesis_id=row.hypothesis_id,
        status=row.status,  # type: ignore[arg-type]
        evidence=tuple(EvidenceRef(**e) for e in json.loads(row.evidence_json)),
        confidence=row.confidence,
        summary=row.summary,
        specialist=row.specialist,
        tool_calls=tuple(json.loads(row.tool_calls_json)),
    )


class DbWorkingMemory:
    """Findings of one investigation, persisted as they are written (each add commits)."""

    def __init__(self, session: Session, investigation_id: str) -> None:
        self._session = session
        self._id = investigation_id

    def add(self, finding: Finding) -> None:
        self._session.add(_row(self._id, finding))
        self._session.commit()

    def findings(self, hypothesis_id: str | None = None) -> list[Finding]:
        query = select(FindingRow).where(FindingRow.investigation_id == self._id)
        if hypothesis_id is not None:
            query = query.where(FindingRow.hypothesis_id == hypothesis_id)
        return [_finding(r) for r in self._session.scalars(query.order_by(FindingRow.id))]
