"""Follow-up questions about a finished investigation, answered from its own evidence.

Rule mode: score every claim and evidence item by word overlap with the
question (with a boost for the evidence kind the question asks about:
"deploy" → changes, "log"/"error" → logs, "cpu"/"latency" → metrics,
"runbook" → knowledge) and answer with the best ones, each cited. It never
says anything the investigation did not already cite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rootward.domain.investigation import InvestigationResult

_WORD = re.compile(r"[a-z0-9_]+")
_STOP = {
    "the",
    "a",
    "an",
    "is",
    "was",
    "were",
    "what",
    "why",
    "how",
    "did",
    "does",
    "do",
    "of",
    "in",
    "on",
    "to",
    "for",
    "and",
    "or",
    "it",
    "this",
    "that",
    "any",
    "there",
    "be",
    "been",
    "at",
    "with",
    "which",
    "who",
}
KIND_HINTS = {
    "change": ("deploy", "deployed", "change", "changed", "release", "version", "rollout", "config", "flag"),
    "log": ("log", "logs", "error", "errors", "exception", "message", "stack"),
    "metric": ("metric", "cpu", "memory", "latency", "rate", "disk", "traffic", "saturation", "graph"),
    "knowledge": ("runbook", "postmortem", "doc", "notes", "known", "past"),
    "topology": ("depend", "depends", "dependency", "upstream", "downstream", "calls", "graph"),
    "alert": ("alert", "alerts", "fired", "page", "monitor"),
}


@dataclass(frozen=True)
class Answer:
    text: str
    evidence: tuple[str, ...]


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def answer(result: InvestigationResult, question: str, *, max_items: int = 3) -> Answer:
    asked = _words(question)
    if not asked:
        return Answer("Ask about the alerts, logs, metrics, changes or runbooks of this incident.", ())
    wanted = {kind for kind, hints in KIND_HINTS.items() if asked & set(hints)}
    scored: list[tuple[float, str, tuple[str, ...]]] = []
    for claim in result.claims:
        overlap = len(asked & _words(claim.text))
        kinds = {result.evidence[e].kind for e in claim.evidence if e in result.evidence}
        score = overlap + (1.5 if kinds & wanted else 0.0)
        if score > 0 and claim.evidence:
            scored.append((score + 0.5, claim.text, tuple(claim.evidence)))
    for eid, item in result.evidence.items():
        overlap = len(asked & _words(f"{item.cite} {item.excerpt}"))
        score = overlap + (2.0 if item.kind in wanted else 0.0)
        if score > 0:
            text = f"{item.kind} {item.cite}: {item.excerpt}".strip().rstrip(":")
            scored.append((score, text, (eid,)))
    scored.sort(key=lambda s: -s[0])
    seen: set[str] = set()
    picked: list[tuple[str, tuple[str, ...]]] = []
    for _, text, ids in scored:
        if text in seen:
            continue
        seen.add(text)
        picked.append((text, ids))
        if len(picked) == max_items:
            break
    if not picked:
        return Answer("The investigation cited nothing about that; it does not know.", ())
    lines = [f"{text} [{', '.join(ids)}]" for text, ids in picked]
    cited = tuple(dict.fromkeys(e for _, ids in picked for e in ids))
    return Answer("\n".join(lines), cited)
