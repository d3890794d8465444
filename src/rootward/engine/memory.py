"""Working memory: the findings specialists write and the supervisor reads.

A protocol with an in-memory implementation (rule mode, tests, bundle runs);
`rootward.store.findings.DbWorkingMemory` persists the same records in the
database so a resumed worker sees what the crashed one had found.
"""

from __future__ import annotations

from typing import Protocol

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
