"""Follow-up questions about a finished investigation, answered from its evidence and the incident's data.

Rule mode. Questions about changes ("which deploys happened in the last
hour?") list every change of the incident's data in the asked window (relative
to when the alert fired), about alerts or services every alert, about time the
onset and the alert time; each line cites its evidence id, or the bundle cite
of data the RCA did not need. Any other question: every claim and evidence
item is scored by word overlap with the question (words compared by their
stem, with a boost for the evidence kind asked about) and the best ones are
quoted with their cites. It never says anything the data does not hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rootward.domain.investigation import InvestigationResult
from rootward.engine.followup_context import FollowupContext
from rootward.engine.followup_topics import alerts_answer, changes_answer, time_answer

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


TIME_WORDS = frozenset({"when", "start", "began", "begin", "onset", "time", "long", "since"})


@dataclass(frozen=True)
class Answer:
    text: str
    evidence: tuple[str, ...]  # evidence ids of the investigation
    cites: tuple[str, ...] = ()  # bundle cites of the incident's data the RCA did not cite
    source: Literal["rule", "llm"] = "rule"  # who wrote `text`: these rules, or a model (cites checked by code)
    note: str = ""  # how it was answered when a model was asked: the cites kept, the cut, or why rule mode answered


def stem(word: str) -> str:
    """A crude English stem, so "deploys", "deployed" and "deploying" meet "deploy"."""
    for suffix, keep in (("ies", "y"), ("s", ""), ("ing", ""), ("ed", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + keep
    return word


def _words(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def asked_about(question: str) -> tuple[set[str], set[str]]:
    """The question's stemmed words, and the evidence kinds they ask about (`deploys` → change)."""
    asked = _words(question)
    return asked, {kind for kind, hints in KIND_HINTS.items() if asked & {stem(h) for h in hints}}


def overlap(asked: set[str], text: str) -> int:
    """Words of the question that `text` holds too, compared by stem."""
    return len(asked & _words(text))


def answer(
    result: InvestigationResult,
    question: str,
    context: FollowupContext | None = None,
    *,
    max_items: int = 3,
) -> Answer:
    asked, wanted = asked_about(question)
    if not asked:
        return Answer("Ask about the alerts, logs, metrics, changes or runbooks of this incident.", ())
    ctx = context or FollowupContext(fired_at=result.fired_at)
    topical = _topical(result, question, asked, wanted, ctx)
    if topical is not None:
        return topical
    return _by_overlap(result, asked, wanted, max_items)


def _topical(
    result: InvestigationResult, question: str, asked: set[str], wanted: set[str], ctx: FollowupContext
) -> Answer | None:
    """Questions about one kind of fact, answered by listing every such fact, not the best three."""
    if "change" in wanted:
        text, ids, cites = changes_answer(result, question, ctx)
    elif "alert" in wanted or asked & {"service"}:
        text, ids, cites = alerts_answer(result, ctx)
    elif asked & TIME_WORDS:
        text, ids, cites = time_answer(result)
    else:
        return None
    return Answer(text, ids, cites) if text else None


def _by_overlap(result: InvestigationResult, asked: set[str], wanted: set[str], max_items: int) -> Answer:
    scored: list[tuple[float, str, tuple[str, ...]]] = []
    for claim in result.claims:
        kinds = {result.evidence[e].kind for e in claim.evidence if e in result.evidence}
        score = overlap(asked, claim.text) + (1.5 if kinds & wanted else 0.0)
        if score > 0 and claim.evidence:
            scored.append((score + 0.5, claim.text, tuple(claim.evidence)))
    for eid, item in result.evidence.items():
        score = overlap(asked, f"{item.cite} {item.excerpt}") + (2.0 if item.kind in wanted else 0.0)
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
