"""Read what a knowledge query asks for: the positive text, what it rules out, and exact terms.

"payment latency not caused by the database" must not return the database
runbook first; neither BM25 nor a sentence embedding knows what "not" means,
so the negated phrase is taken out of the text they see and used to demote
chunks about it instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rootward.knowledge.lexical import STOPWORDS, exact_terms

_NEGATION = re.compile(
    r"(?:\b(?:it|this|that)(?:'s| is| was)? (?:not|n't)\b|\b(?:isn't|wasn't|not caused by|not due to|not the|"
    r"not a|not an|without|except|excluding|other than|rather than|ruled out|rule out|unrelated to)\b)"
    r"(?:\s+(?:the|a|an|caused|due|by|to|from|related|involving|about|because|of))*"
    r"\s+(?P<phrase>[\w.:-]+(?:\s+[\w.:-]+){0,2})",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"\b(?:but|and|or|so|while|when|which|that|with)\b|[,;.!?]", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedQuery:
    text: str  # what BM25 and the embedder see
    negated: tuple[str, ...]  # phrases the asker ruled out
    exact: tuple[str, ...]  # identifiers to match literally


def parse_query(query: str) -> ParsedQuery:
    negated: list[str] = []
    kept = query
    for match in list(_NEGATION.finditer(query)):
        phrase = _CLAUSE_END.split(match.group("phrase"), maxsplit=1)[0].strip()
        words = [w for w in phrase.split() if w.lower() not in STOPWORDS]
        if not words:
            continue
        phrase = " ".join(words)
        negated.append(phrase.lower())
        kept = kept.replace(match.group(0), " ")
    text = " ".join(kept.split()) or query
    return ParsedQuery(text=text, negated=tuple(negated), exact=tuple(exact_terms(text)))
