"""Follow-up questions about a finished investigation, answered from its own evidence.

Rule mode is an evidence search: the question's words are matched against the
evidence excerpts, cites, hypotheses and claims, and the answer quotes the best
matches with their evidence ids. Nothing outside the stored result is read, so
every answer is as cited as the RCA itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rootward.domain.investigation import InvestigationResult

_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "was",
        "were",
        "be",
        "been",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "why",
        "what",
        "when",
        "which",
        "who",
        "how",
        "did",
        "does",
        "do",
        "it",
        "its",
        "this",
        "that",
        "there",
        "their",
        "then",
        "than",
        "with",
        "from",
        "by",
        "as",
        "root",
        "cause",
    ]
)
MAX_HITS = 3


@dataclass(frozen=True)
class Answer:
    text: str
    evidence: list[str] = field(default_factory=list)


def _terms(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def answer(result: InvestigationResult, question: str) -> Answer:
    """The evidence that best matches the question, quoted with ids; says so when nothing matches."""
    terms = _terms(question)
    if not terms:
        return Answer("Ask about an entity, a metric, a log message or a change in this investigation.")
    scored: list[tuple[float, str]] = []
    boost: dict[str, float] = {}
    for h in result.hypotheses:
        overlap = len(terms & _terms(f"{h.entity} {h.fault_type.replace('_', ' ')} {h.fault_type}"))
        for eid in h.evidence:
            boost[eid] = max(boost.get(eid, 0.0), 0.5 * overlap)
    for eid, item in result.evidence.items():
        words = _terms(f"{item.kind} {item.cite} {item.excerpt}")
        score = len(terms & words) + boost.get(eid, 0.0)
        if score > 0:
            scored.append((score, eid))
    scored.sort(key=lambda s: (-s[0], int(s[1][1:]) if s[1][1:].isdigit() else 0))
    hits = [eid for _, eid in scored[:MAX_HITS]]
    if not hits:
        return Answer("Nothing in this investigation's evidence matches that question.")
    lines = [
        f"{eid} ({result.evidence[eid].kind}, {result.evidence[eid].cite}): {result.evidence[eid].excerpt}"
        for eid in hits
    ]
    lead = ""
    if result.hypotheses:
        top = result.hypotheses[0]
        lead = f"Leading hypothesis: {top.fault_type} at {top.entity} ({top.status}, {top.confidence:.2f}). "
    return Answer(lead + "Relevant evidence: " + " | ".join(lines), hits)
