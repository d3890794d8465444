"""Runbooks specialist: do team notes, runbooks or postmortems point at this fault here?"""

from __future__ import annotations

from rootward.context.assemble import KnowledgeItem
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding
from rootward.engine.signatures import LOG_SIGNATURES
from rootward.engine.specialists.base import Specialist, finding
from rootward.engine.tools import ToolLayer


class RunbooksSpecialist(Specialist):
    name = "runbooks"
    manifest = frozenset({"knowledge_for"})

    def check(self, h: Hypothesis, tools: ToolLayer) -> Finding | None:
        docs: list[KnowledgeItem] = self.call(tools, "knowledge_for", entity=h.entity).data
        pattern = LOG_SIGNATURES.get(h.fault_type)
        words = h.fault_type.replace("_", " ")
        hits = [d for d in docs if words in d.text.lower() or (pattern is not None and pattern.search(d.text))]
        if not hits:
            return None
        d = hits[0]
        return finding(h, "inconclusive", 0.3, f'{d.kind} "{d.title}" discusses {words} at {h.entity}', [d.evidence])
