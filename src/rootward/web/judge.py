"""Judge scores in the console (`/judge`) and the API (`/api/v1/judge/trends`).

Both render `observability.judge_trends.judge_overview`: means and daily
trends per service and per prompt version, the prompt trials with their
samples per arm, and how often each judge agrees with human feedback.
"""

from __future__ import annotations

from datetime import date

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from rootward.domain.roles import Role
from rootward.observability.judge_trends import JudgeOverview, judge_overview
from rootward.store.judge_scores import TrendSeries
from rootward.store.users import User
from rootward.web.auth import require
from rootward.web.pages import page, signed_in

router = APIRouter(tags=["judge"])
Days = Query(30, ge=1, le=365, description="Days of daily means")
SPARK_W, SPARK_H = 160, 28


class TrendOut(BaseModel):
    key: str = Field(description="The service, or the prompt version (`template@arm`, `control`, `rule`)")
    judged: int
    overall: float = Field(description="Mean overall score (0-1), all time")
    by_dimension: dict[str, float]
    daily: list[tuple[date, int, float]] = Field(description="(UTC day, investigations judged, mean overall)")


class AgreementOut(BaseModel):
    judge: str
    compared: int = Field(description="RCAs with both a judge score and human feedback")
    agreed: int
    rate: float | None


class TrialOut(BaseModel):
    trial_id: str
    template: str
    status: str
    promoted_arm: str
    reason: str
    samples: dict[str, int]
    means: dict[str, float | None]


class JudgeTrendsOut(BaseModel):
    days: int
    good: float = Field(description="Overall score at and above which the judge's verdict is 'a good RCA'")
    by_service: list[TrendOut]
    by_prompt_version: list[TrendOut]
    trials: list[TrialOut]
    agreement: list[AgreementOut]


def _trends(overview: JudgeOverview, by: str) -> list[TrendOut]:
    trends = overview.by_service if by == "service" else overview.by_prompt_version
    series = {s.key: s for s in (overview.service_series if by == "service" else overview.prompt_series)}
    return [
        TrendOut(
            key=t.key,
            judged=t.judged,
            overall=t.overall,
            by_dimension=t.by_dimension,
            daily=[(d.day, d.judged, d.overall) for d in series[t.key].days] if t.key in series else [],
        )
        for t in trends
    ]


def trends_out(overview: JudgeOverview) -> JudgeTrendsOut:
    return JudgeTrendsOut(
        days=overview.days,
        good=overview.good,
        by_service=_trends(overview, "service"),
        by_prompt_version=_trends(overview, "prompt_version"),
        trials=[TrialOut(**vars(t)) for t in overview.trials],
        agreement=[
            AgreementOut(judge=a.judge, compared=a.compared, agreed=a.agreed, rate=a.rate) for a in overview.agreement
        ],
    )


def sparkline(series: TrendSeries | None) -> str:
    """The daily means as a small SVG line on a fixed 0-1 scale, so two rows compare by eye."""
    if series is None or len(series.days) < 2:
        return ""
    n = len(series.days) - 1
    points = " ".join(f"{i / n * SPARK_W:.1f},{SPARK_H - d.overall * SPARK_H:.1f}" for i, d in enumerate(series.days))
    first, last = series.days[0], series.days[-1]
    label = f"daily mean {first.overall:.2f} on {first.day} to {last.overall:.2f} on {last.day}"
    return (
        f'<svg class="spark" viewBox="0 0 {SPARK_W} {SPARK_H}" width="{SPARK_W}" height="{SPARK_H}" role="img" '
        f'aria-label="{label}"><polyline points="{points}"/><title>{label}</title></svg>'
    )


def _read(request: Request, days: int) -> JudgeOverview:
    with request.app.state.sessions() as session:
        return judge_overview(session, days=days)


@router.get("/api/v1/judge/trends", response_model=JudgeTrendsOut)
def judge_trends(request: Request, days: int = Days, _user: User = Depends(require(Role.VIEWER))) -> JudgeTrendsOut:
    """Judge scores per service and per prompt version (means and daily trend), trials, agreement with people."""
    return trends_out(_read(request, days))


@router.get("/judge", response_class=HTMLResponse)
def judge_page(request: Request, days: int = Days) -> HTMLResponse:
    user = signed_in(request)
    overview = _read(request, days)
    sparks = {("service", s.key): sparkline(s) for s in overview.service_series} | {
        ("prompt_version", s.key): sparkline(s) for s in overview.prompt_series
    }
    return page(request, "judge.html", user, overview=overview, sparks=sparks)
