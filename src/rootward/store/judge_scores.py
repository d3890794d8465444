"""Judge scores per investigation, and the prompt trials they decide.

A score row is one judging of one investigation (five dimensions and their
mean), kept with its service, the prompt version that produced it and, when
the investigation was part of a prompt trial, the trial and arm; trends and
trial samples are SQL over these rows. A trial row is the trial's state
(running, promoted, aborted, reverted); every change of state is audited by
the caller in the same transaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal

from sqlalchemy import DateTime, Float, Index, Integer, String, Text, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootward.store.base import Base

TrendDimension = Literal["service", "prompt_version"]
DIMENSIONS = ("evidence_grounding", "root_cause_specificity", "actionability", "calibration", "clarity")


class JudgeScoreRow(Base):
    __tablename__ = "judge_scores"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    investigation_id: Mapped[str] = mapped_column(String(64), nullable=False)
    service: Mapped[str] = mapped_column(String(200), nullable=False, default="")
    prompt_version: Mapped[str] = mapped_column(String(200), nullable=False, default="")
    trial_id: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    arm: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    judge: Mapped[str] = mapped_column(String(200), nullable=False)
    evidence_grounding: Mapped[float] = mapped_column(Float, nullable=False)
    root_cause_specificity: Mapped[float] = mapped_column(Float, nullable=False)
    actionability: Mapped[float] = mapped_column(Float, nullable=False)
    calibration: Mapped[float] = mapped_column(Float, nullable=False)
    clarity: Mapped[float] = mapped_column(Float, nullable=False)
    overall: Mapped[float] = mapped_column(Float, nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    # Why the rubric stood in for a configured judge model ("" when it did not).
    note: Mapped[str] = mapped_column(Text, nullable=False, default="", server_default="")

    __table_args__ = (
        Index("ix_judge_scores_investigation", "investigation_id"),
        Index("ix_judge_scores_trial", "trial_id", "arm"),
    )


class PromptTrialRow(Base):
    __tablename__ = "prompt_trials"

    trial_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    template: Mapped[str] = mapped_column(String(200), nullable=False)
    arms: Mapped[str] = mapped_column(Text, nullable=False)  # JSON list, `control` first
    status: Mapped[str] = mapped_column(String(16), nullable=False)  # running|promoted|aborted|reverted
    promoted_arm: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    @property
    def arm_list(self) -> list[str]:
        return [str(a) for a in json.loads(self.arms)]


@dataclass(frozen=True)
class ScoreInput:
    investigation_id: str
    service: str
    prompt_version: str
    judge: str
    scores: dict[str, float]  # the five dimensions
    trial_id: str = ""
    arm: str = ""
    note: str = ""


def record_scores(session: Session, score: ScoreInput, *, at: datetime | None = None) -> JudgeScoreRow:
    dims = {d: float(score.scores[d]) for d in DIMENSIONS}
    row = JudgeScoreRow(
        investigation_id=score.investigation_id,
        service=score.service,
        prompt_version=score.prompt_version,
        trial_id=score.trial_id,
        arm=score.arm,
        judge=score.judge,
        note=score.note,
        overall=round(sum(dims.values()) / len(dims), 4),
        at=at or datetime.now(UTC),
        **dims,
    )
    session.add(row)
    session.flush()
    return row


@dataclass(frozen=True)
class Trend:
    key: str
    judged: int
    overall: float
    by_dimension: dict[str, float]


def score_trends(session: Session, by: TrendDimension, *, since: datetime | None = None) -> list[Trend]:
    """Mean scores per service or prompt version."""
    column = JudgeScoreRow.service if by == "service" else JudgeScoreRow.prompt_version
    dims = [func.avg(getattr(JudgeScoreRow, d)) for d in DIMENSIONS]
    query = select(column, func.count(), func.avg(JudgeScoreRow.overall), *dims).group_by(column)
    if since is not None:
        query = query.where(JudgeScoreRow.at >= since)
    return [
        Trend(
            str(key),
            int(n),
            round(float(mean), 4),
            {d: round(float(v), 4) for d, v in zip(DIMENSIONS, rest, strict=True)},
        )
        for key, n, mean, *rest in session.execute(query).all()
    ]


def is_judged(session: Session, investigation_id: str) -> bool:
    found = session.scalar(select(JudgeScoreRow.id).where(JudgeScoreRow.investigation_id == investigation_id).limit(1))
    return found is not None


def fallback_count(session: Session) -> int:
    """Judgings whose configured judge model failed, so the rubric's scores were kept (with the reason)."""
    return int(session.scalar(select(func.count()).select_from(JudgeScoreRow).where(JudgeScoreRow.note != "")) or 0)


@dataclass(frozen=True)
class DailyScore:
    day: date
    judged: int
    overall: float


@dataclass(frozen=True)
class TrendSeries:
    """One service's or prompt version's mean overall score per UTC day, oldest first (days with none left out)."""

    key: str
    days: list[DailyScore]


def score_series(session: Session, by: TrendDimension, *, since: datetime) -> list[TrendSeries]:
    """Daily means since `since`, per service or prompt version: the trend a single mean hides."""
    column = JudgeScoreRow.service if by == "service" else JudgeScoreRow.prompt_version
    rows = session.execute(
        select(column, JudgeScoreRow.at, JudgeScoreRow.overall).where(JudgeScoreRow.at >= since)
    ).all()
    buckets: dict[str, dict[date, list[float]]] = {}
    for key, at, overall in rows:
        day = (at if at.tzinfo else at.replace(tzinfo=UTC)).astimezone(UTC).date()
        buckets.setdefault(str(key), {}).setdefault(day, []).append(float(overall))
    return [
        TrendSeries(key, [DailyScore(d, len(xs), round(sum(xs) / len(xs), 4)) for d, xs in sorted(days.items())])
        for key, days in sorted(buckets.items())
    ]


def trial_samples(session: Session, trial_id: str) -> dict[str, list[float]]:
    """Overall scores per arm of a trial, oldest first."""
    rows = session.execute(
        select(JudgeScoreRow.arm, JudgeScoreRow.overall)
        .where(JudgeScoreRow.trial_id == trial_id)
        .order_by(JudgeScoreRow.at, JudgeScoreRow.id)
    ).all()
    out: dict[str, list[float]] = {}
    for arm, overall in rows:
        out.setdefault(str(arm), []).append(float(overall))
    return out


GOOD = 0.6  # a judge's "good RCA": overall at or above this


@dataclass(frozen=True)
class Agreement:
    judge: str
    compared: int  # investigations with both a judge score and human feedback on the RCA
    agreed: int

    @property
    def rate(self) -> float | None:
        return round(self.agreed / self.compared, 4) if self.compared else None


def judge_agreement(session: Session) -> list[Agreement]:
    """How often each judge agrees with people: overall >= GOOD where the RCA was accepted, below where
    it was edited or wrong. The latest feedback and the latest score of each investigation count."""
    from rootward.store.investigations import FeedbackRow

    feedback: dict[str, str] = {}
    for inv, verdict in session.execute(
        select(FeedbackRow.investigation_id, FeedbackRow.verdict)
        .where(FeedbackRow.target == "rca")
        .order_by(FeedbackRow.created_at, FeedbackRow.id)
    ).all():
        feedback[str(inv)] = str(verdict)
    latest: dict[tuple[str, str], float] = {}
    for judge, inv, overall in session.execute(
        select(JudgeScoreRow.judge, JudgeScoreRow.investigation_id, JudgeScoreRow.overall)
        .where(JudgeScoreRow.investigation_id.in_(list(feedback)))
        .order_by(JudgeScoreRow.at, JudgeScoreRow.id)
    ).all():
        latest[(str(judge), str(inv))] = float(overall)
    counts: dict[str, list[int]] = {}
    for (judge, inv), overall in latest.items():
        tally = counts.setdefault(judge, [0, 0])
        tally[0] += 1
        tally[1] += int((overall >= GOOD) == (feedback[inv] == "accepted"))
    return [Agreement(j, n, a) for j, (n, a) in sorted(counts.items())]
