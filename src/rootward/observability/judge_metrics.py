"""Judge scores and prompt trials on `/metrics`, read from the database at scrape time.

Mean score per service and per prompt version (overall and each dimension),
how many investigations were judged, how often the rubric stood in for a
failing judge model, each prompt trial's state and its samples and mean per
arm, and the judge's agreement with human feedback, so a
dashboard can trend quality next to cost. Cached for `ttl_s` like the main
database collector.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from rootward.store.judge_scores import (
    DIMENSIONS,
    Agreement,
    PromptTrialRow,
    Trend,
    fallback_count,
    judge_agreement,
    score_trends,
    trial_samples,
)

SessionFactory = Callable[[], AbstractContextManager[Session]]
TRIAL_STATES = ("running", "promoted", "aborted", "reverted")


def judge_families(
    by_service: list[Trend],
    by_prompt: list[Trend],
    trials: list[PromptTrialRow],
    agreement: list[Agreement],
    samples: dict[str, dict[str, list[float]]] | None = None,
    fallbacks: int = 0,
) -> list[Metric]:
    score = GaugeMetricFamily(
        "rootward_judge_score", "Mean judge score (0-1) of investigations", labels=["by", "key", "dimension"]
    )
    judged = GaugeMetricFamily("rootward_judge_investigations", "Investigations judged", labels=["by", "key"])
    for by, trends in (("service", by_service), ("prompt_version", by_prompt)):
        for t in trends:
            judged.add_metric([by, t.key], t.judged)
            score.add_metric([by, t.key, "overall"], t.overall)
            for dim in DIMENSIONS:
                score.add_metric([by, t.key, dim], t.by_dimension[dim])
    state = GaugeMetricFamily("rootward_prompt_trial_state", "1 for a trial's current state", labels=["trial", "state"])
    for trial in trials:
        for s in TRIAL_STATES:
            state.add_metric([trial.trial_id, s], 1.0 if trial.status == s else 0.0)
    agree = GaugeMetricFamily(
        "rootward_judge_human_agreement", "Share of RCAs where the judge agrees with human feedback", labels=["judge"]
    )
    compared = GaugeMetricFamily(
        "rootward_judge_human_compared", "RCAs with both a judge score and human feedback", labels=["judge"]
    )
    for a in agreement:
        compared.add_metric([a.judge], a.compared)
        if a.rate is not None:
            agree.add_metric([a.judge], a.rate)
    arm_n = GaugeMetricFamily(
        "rootward_prompt_trial_samples", "Judged investigations per arm of a prompt trial", labels=["trial", "arm"]
    )
    arm_mean = GaugeMetricFamily(
        "rootward_prompt_trial_score", "Mean overall judge score per arm of a prompt trial", labels=["trial", "arm"]
    )
    for trial in trials:
        per_arm = (samples or {}).get(trial.trial_id, {})
        for arm in trial.arm_list:
            xs = per_arm.get(arm, [])
            arm_n.add_metric([trial.trial_id, arm], len(xs))
            if xs:
                arm_mean.add_metric([trial.trial_id, arm], round(sum(xs) / len(xs), 4))
    fell_back = GaugeMetricFamily(
        "rootward_judge_rubric_fallbacks", "Judgings where the rubric stood in for a failing judge model"
    )
    fell_back.add_metric([], fallbacks)
    return [score, judged, state, agree, compared, arm_n, arm_mean, fell_back]


class JudgeCollector(Collector):
    def __init__(self, sessions: SessionFactory, *, ttl_s: float = 5.0) -> None:
        self._sessions = sessions
        self._ttl_s = ttl_s
        self._lock = threading.Lock()
        self._cached: list[Metric] | None = None
        self._at = 0.0

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            if self._cached is None or time.monotonic() - self._at >= self._ttl_s:
                self._cached = self._read()
                self._at = time.monotonic()
            families = self._cached
        yield from families

    def _read(self) -> list[Metric]:
        """The families, or only an error gauge when the tables cannot be read (e.g. not migrated yet)."""
        error = GaugeMetricFamily("rootward_judge_metrics_error", "1 when judge scores could not be read")
        try:
            with self._sessions() as session:
                trials = list(session.scalars(select(PromptTrialRow)))
                by_service, by_prompt = score_trends(session, "service"), score_trends(session, "prompt_version")
                samples = {t.trial_id: trial_samples(session, t.trial_id) for t in trials}
                families = judge_families(
                    by_service, by_prompt, trials, judge_agreement(session), samples, fallback_count(session)
                )
        except SQLAlchemyError:
            error.add_metric([], 1.0)
            return [error]
        error.add_metric([], 0.0)
        return [*families, error]

    def describe(self) -> Iterator[Metric]:
        return iter(())
