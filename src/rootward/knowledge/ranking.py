"""Pure ranking rules: reciprocal rank fusion, then rerank by service, recency and staleness.

Kept apart from the index so every rule is a small function with a test and
the numbers that shape the order sit in one place.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import date

RRF_K = 60
STALE_AFTER_DAYS = 90
STALE_FACTOR = 0.7  # a stale runbook keeps 70% of its score: lower, still retrievable
SERVICE_MATCH_FACTOR = 1.15  # on top of the service-restricted rankings fused in
EXACT_MATCH_FACTOR = 2.5  # the error code the engineer typed, literally present
NEGATED_FACTOR = 0.35
RUNBOOK_FACTOR = 1.4  # a runbook says what to do; postmortems of the same fault rank just behind it
RECENCY_WEIGHT = 0.1  # a runbook updated today gets up to +10%
RECENCY_HALF_LIFE_DAYS = 180


def reciprocal_rank_fusion(rankings: Iterable[Sequence[int]], k: int = RRF_K) -> dict[int, float]:
    """Σ 1/(k + rank) over the rankings each item appears in (rank 1 = best)."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + 1.0 / (k + rank)
    return fused


def age_days(updated: date | None, now: date) -> int | None:
    return None if updated is None else (now - updated).days


def is_stale(kind: str, updated: date | None, now: date) -> bool:
    """Only runbooks go stale: a postmortem records what happened then and stays true."""
    age = age_days(updated, now)
    return kind == "runbook" and age is not None and age > STALE_AFTER_DAYS


def stale_warning(updated: date | None, now: date) -> str:
    age = age_days(updated, now)
    return f"runbook not updated for {age} days (last {updated}); verify before following it"


def recency_factor(kind: str, updated: date | None, now: date) -> float:
    age = age_days(updated, now)
    if kind != "runbook" or age is None:
        return 1.0
    return 1.0 + RECENCY_WEIGHT * math.exp(-max(age, 0) * math.log(2) / RECENCY_HALF_LIFE_DAYS)


def service_factor(doc_services: Sequence[str], wanted: Sequence[str]) -> float:
    if wanted and set(doc_services) & set(wanted):
        return SERVICE_MATCH_FACTOR
    return 1.0


def stale_factor_for(kind: str, updated: date | None, now: date) -> float:
    return STALE_FACTOR if is_stale(kind, updated, now) else 1.0


def kind_factor(kind: str) -> float:
    return RUNBOOK_FACTOR if kind == "runbook" else 1.0
