"""The judge's view of investigation quality, as the console and its API show it.

Means per service and per prompt version (all time), their daily means over
the last days (the trend a single mean hides), each prompt trial with its
judged samples per arm, and each judge's agreement with the people who rated
RCAs (`store.judge_scores.judge_agreement`). Read from the store in one go,
so a page renders what one consistent read found.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootward.store.judge_scores import (
    GOOD,
    Agreement,
    PromptTrialRow,
    Trend,
    TrendSeries,
    judge_agreement,
    score_series,
    score_trends,
    trial_samples,
)


@dataclass(frozen=True)
class TrialView:
    trial_id: str
    template: str
    status: str
    promoted_arm: str
    reason: str
    samples: dict[str, int]  # judged samples per arm, control first
    means: dict[str, float | None]


@dataclass(frozen=True)
class JudgeOverview:
    days: int
    good: float  # the overall score at and above which the judge calls an RCA good
    by_service: list[Trend]
    by_prompt_version: list[Trend]
    service_series: list[TrendSeries]
    prompt_series: list[TrendSeries]
    trials: list[TrialView]
    agreement: list[Agreement]


def judge_overview(session: Session, *, days: int = 30, now: datetime | None = None) -> JudgeOverview:
    since = (now or datetime.now(UTC)) - timedelta(days=days)
    views = []
    for t in session.scalars(select(PromptTrialRow).order_by(PromptTrialRow.created_at)):
        samples = trial_samples(session, t.trial_id)
        views.append(
            TrialView(
                t.trial_id,
                t.template,
                t.status,
                t.promoted_arm,
                t.reason,
                {a: len(samples.get(a, [])) for a in t.arm_list},
                {a: round(sum(xs) / len(xs), 4) if (xs := samples.get(a)) else None for a in t.arm_list},
            )
        )
    return JudgeOverview(
        days=days,
        good=GOOD,
        by_service=score_trends(session, "service"),
        by_prompt_version=score_trends(session, "prompt_version"),
        service_series=score_series(session, "service", since=since),
        prompt_series=score_series(session, "prompt_version", since=since),
        trials=views,
        agreement=judge_agreement(session),
    )
