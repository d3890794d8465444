"""The scheduled evaluation of prompt trials: waits, promotes a winner, aborts a flat one, all audited."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.llm.settings import JudgeSettings
from rootward.llm.trial_runs import TrialError, active_variant, start_trial
from rootward.llm.trials import CONTROL, route
from rootward.runtime.trial_schedule import evaluate_trials, trial_loop
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.db import make_engine, make_session_factory
from rootward.store.judge_scores import ScoreInput, record_scores

DIMS = ("evidence_grounding", "root_cause_specificity", "actionability", "calibration", "clarity")
ANY = lambda template, variant: True  # noqa: E731 - the schedule does not render the variants


@pytest.fixture
def sessions(migrated_db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(migrated_db_url)
    yield make_session_factory(engine)
    engine.dispose()


def _seed(sessions: sessionmaker[Session], trial: str, n: int, mean_of: dict[str, float], start: int = 0) -> None:
    """n investigations routed into `trial`, each judged at its arm's mean with a small fixed spread."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    with sessions() as s, s.begin():
        for i in range(start, start + n):
            arm = route(trial, f"inc-{i}", [CONTROL, "v1"])
            value = mean_of[arm] + (i % 5 - 2) * 0.01
            dims = dict.fromkeys(DIMS, value)
            record_scores(s, ScoreInput(f"inv-{i}", "svc", f"t@{arm}", "rubric-1", dims, trial, arm), at=at)


def _kinds(sessions: sessionmaker[Session], trial: str) -> list[str]:
    with sessions() as s:
        return [r.kind for r in s.scalars(select(AuditRow).order_by(AuditRow.id)) if r.subject == trial]


def test_the_serve_loop_waits_then_promotes_a_variant_that_wins(sessions: sessionmaker[Session]) -> None:
    with sessions() as s, s.begin():
        start_trial(s, "t1", "propose_system", ["v1"], actor="alice", exists=ANY)
    _seed(sessions, "t1", 20, {CONTROL: 0.6, "v1": 0.7})
    assert evaluate_trials(sessions)["t1"].action == "wait"  # some arm under 15 samples
    assert _kinds(sessions, "t1") == ["prompt_trial.started"]  # a wait changes nothing
    _seed(sessions, "t1", 60, {CONTROL: 0.6, "v1": 0.7}, start=20)
    loop = trial_loop(JudgeSettings(evaluate_every_s=3600), sessions)
    assert loop is not None
    stop = threading.Event()
    stop.set()  # one pass, then the loop ends
    loop(stop)
    assert _kinds(sessions, "t1") == ["prompt_trial.started", "prompt_trial.promoted"]
    with sessions() as s:
        assert active_variant(s, "propose_system") == "v1"
        promoted = s.scalars(select(AuditRow).where(AuditRow.kind == "prompt_trial.promoted")).one()
        data = json.loads(promoted.data)
        assert data["actor"] == "scheduler" and data["arm"] == "v1" and data["lifts"]["v1"] >= 0.05
        assert verify_chain(s).ok
    assert evaluate_trials(sessions) == {}  # nothing running any more


def test_the_schedule_aborts_a_variant_no_better_than_control(sessions: sessionmaker[Session]) -> None:
    with sessions() as s, s.begin():
        start_trial(s, "t2", "write_system", ["v1"], actor="alice", exists=ANY)
        with pytest.raises(TrialError, match="takes no variants"):  # the reasoner would never render it
            start_trial(s, "t3", "judge_system", ["v1"], actor="alice", exists=ANY)
        with pytest.raises(TrialError, match="'t2' is running"):  # one trial at a time
            start_trial(s, "t3", "propose_system", ["v1"], actor="alice", exists=ANY)
    _seed(sessions, "t2", 60, {CONTROL: 0.6, "v1": 0.62})
    decision = evaluate_trials(sessions)["t2"]
    assert decision.action == "abort" and decision.lifts["v1"] < 0.05
    assert _kinds(sessions, "t2") == ["prompt_trial.started", "prompt_trial.aborted"]
    with sessions() as s, s.begin():
        assert active_variant(s, "write_system") == CONTROL
        start_trial(s, "t3", "propose_system", ["v1"], actor="alice", exists=ANY)  # the next one may start now


def test_the_loop_is_off_at_zero_interval(sessions: sessionmaker[Session]) -> None:
    assert trial_loop(JudgeSettings(evaluate_every_s=0), sessions) is None


def test_scores_seeded_over_two_days_trend_per_day(sessions: sessionmaker[Session]) -> None:
    from rootward.store.judge_scores import score_series

    day = datetime(2026, 3, 1, 12, tzinfo=UTC)
    with sessions() as s, s.begin():
        for i, (offset, value) in enumerate([(0, 0.4), (0, 0.6), (1, 0.8)]):
            dims = dict.fromkeys(DIMS, value)
            record_scores(
                s, ScoreInput(f"i{i}", "checkout", "control", "rubric-1", dims), at=day + timedelta(days=offset)
            )
        [series] = score_series(s, "service", since=day - timedelta(days=1))
    assert series.key == "checkout"
    assert [(d.day.isoformat(), d.judged, d.overall) for d in series.days] == [
        ("2026-03-01", 2, 0.5),
        ("2026-03-02", 1, 0.8),
    ]
