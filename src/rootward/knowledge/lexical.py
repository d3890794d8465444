"""Tokens for BM25 and the query's exact terms.

Operations text is full of compound identifiers (`payment-db`,
`ERR_POOL_TIMEOUT`, `pg:53300`, `node-3`). A generic word tokenizer would cut
them into common words and lose the very thing an exact search is for, so a
compound is kept whole *and* split into its parts: `payment-db` matches a
query for `payment-db` exactly and still matches `payment`.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+(?:[-_.:/][a-z0-9]+)*")
_SPLIT = re.compile(r"[-_.:/]")
# An identifier an engineer would search verbatim: has a digit, an underscore, or inner capitals.
_EXACT = re.compile(r"\b(?=[\w.:-]*(?:\d|_|[a-z][A-Z]))[A-Za-z][\w.:-]*\w\b|\b\d{3,}\b")

_STOPWORDS_TEXT = (
    "a an and are as at be been but by can could did do does for from had has have how i if in into "
    "is it its itself me my of on or our should so than that the their them then there these they "
    "this those to too us was we were what when where which while who why will with would you your "
    "after before during about again any all also just only over under up down out off same such "
    "very more most other some each being"
)
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def _stem(token: str) -> str:
    """Plural folding only: enough for `timeouts`/`timeout`, too little to mangle identifiers."""
    if len(token) > 4 and not any(c.isdigit() for c in token):
        if token.endswith("ies"):
            return token[:-3] + "y"
        if token.endswith("s") and not token.endswith(("ss", "us", "is")):
            return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Lower-cased tokens, compounds kept whole and also split, stopwords and 1-letter tokens dropped."""
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        parts = _SPLIT.split(word)
        if len(parts) > 1:
            out.append(word)
        for part in parts:
            if len(part) > 1 and part not in STOPWORDS:
                out.append(_stem(part))
    return out


def exact_terms(text: str) -> list[str]:
    """Identifiers in a query that must match literally: error codes, monitor names, hostnames."""
    terms: list[str] = []
    for match in _EXACT.findall(text):
        term = match.strip(".:-").lower()
        if len(term) >= 3 and term not in terms:
            terms.append(term)
    return terms
