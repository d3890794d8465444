"""Working memory: the findings specialists write and the supervisor reads.

A protocol with an in-memory implementation (rule mode, tests, bundle runs);
`rootward.store.findings.DbWorkingMemory` persists the same records in the
database so a resumed worker sees what the crashed one had found.
"""

from __future__ import annotations

from typing import Any, Protocol

from rootward.domain.evidence import EvidenceRef
from rootward.domain.investigation import Finding


class WorkingMemory(Protocol):
    def add(self, finding: Finding) -> None: ...

    def findings(self, hypothesis_id: str | None = None) -> list[Finding]: ...


class InMemoryWorkingMemory:
    def __init__(self, findings: list[Finding] | None = None) -> None:
        self._findings: list[Finding] = list(findings or [])

    def add(self, finding: Finding) -> None:
        self._findings.append(finding)

    def findings(self, hypothesis_id: str | None = None) -> list[Finding]:
        return [f for f in self._findings if hypothesis_id is None or f.hypothesis_id == hypothesis_id]


def finding_to_dict(f: Finding) -> dict[str, Any]:
    return {
        "hypothesis_id": f.hypothesis_id,
        "status": f.status,
        "evidence": [{"kind": e.kind, "cite": e.cite, "excerpt": e.excerpt} for e in f.evidence],
        "confidence": f.confidence,
        "summary": f.summary,
        "specialist": f.specialist,
        "tool_calls": list(f.tool_calls),
    }


def finding_from_dict(d: dict[str, Any]) -> Finding:
    return Finding(
        hypothesis_id=str(d["hypothesis_id"]),
        status=d["status"],
        evidence=tuple(EvidenceRef(**e) for e in d.get("evidence", [])),
        confidence=float(d.get("confidence", 0.0)),
        summary=str(d.get("summary", "")),
        specialist=str(d.get("specialist", "")),
        tool_calls=tuple(d.get("tool_calls", [])),
    )
