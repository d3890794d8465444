"""Judge scores and prompt trials in the database (SQLite and PostgreSQL): promotion, abort, revert, audit."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.llm.trial_runs import (
    TrialError,
    active_variant,
    evaluate_trial,
    promote,
    revert,
    start_trial,
    trials,
    variants_for,
)
from rootward.llm.trials import CONTROL, route
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.base import Base
from rootward.store.db import make_engine, make_session_factory
from rootward.store.judge_scores import ScoreInput, record_scores, score_trends

ANY = lambda template, variant: True  # noqa: E731 - the lifecycle tests do not render the variants
MINE = {"judge_scores", "prompt_trials"}
DIMS = ("evidence_grounding", "root_cause_specificity", "actionability", "calibration", "clarity")


@pytest.fixture
def sessions(migrated_db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(migrated_db_url)
    yield make_session_factory(engine)
    engine.dispose()


def _judge(s: Session, trial: str, arms: list[str], n: int, mean_of: dict[str, float]) -> None:
    """n investigations routed into `trial`, each judged with its arm's mean plus a small fixed spread."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    for i in range(n):
        incident = f"inc-{i}"
        arm = route(trial, incident, arms)
        value = mean_of[arm] + (i % 5 - 2) * 0.01
        score = ScoreInput(
            incident, f"svc-{i % 2}", f"propose@{arm}", "rubric-1", dict.fromkeys(DIMS, value), trial_id=trial, arm=arm
        )
        record_scores(s, score, at=at + timedelta(seconds=i))


def test_the_migration_matches_the_tables(migrated_db_url: str) -> None:
    engine = make_engine(migrated_db_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        engine.dispose()
    assert [d for d in diff if any(t in repr(d) for t in MINE)] == []


def test_a_variant_that_wins_is_promoted_audited_and_reverted(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as s:
        start_trial(s, "t1", "propose_system", ["v1"], actor="alice", exists=ANY)
        arms = trials(s)[0].arm_list
        _judge(s, "t1", arms, 20, {CONTROL: 0.6, "v1": 0.7})
        early = evaluate_trial(s, "t1")
    assert early.action == "wait"  # fewer than 15 samples in some arm
    with sessions.begin() as s:
        _judge(s, "t1", arms, 60, {CONTROL: 0.6, "v1": 0.7})
        decision = evaluate_trial(s, "t1")
        assert decision.action == "promote" and decision.arm == "v1"
        assert active_variant(s, "propose_system") == "v1"
        with pytest.raises(TrialError, match="promoted, not running"):
            evaluate_trial(s, "t1")
    with sessions.begin() as s:
        revert(s, "t1", actor="bob")
        assert active_variant(s, "propose_system") == CONTROL
        kinds = [r.kind for r in s.scalars(select(AuditRow).order_by(AuditRow.id)) if r.subject == "t1"]
        assert kinds == ["prompt_trial.started", "prompt_trial.promoted", "prompt_trial.reverted"]
        assert verify_chain(s).ok
        trend = {t.key: t for t in score_trends(s, "prompt_version")}
        assert trend["propose@v1"].overall > trend["propose@control"].overall


def test_a_variant_no_better_than_control_aborts_and_cannot_be_reverted(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as s:
        start_trial(s, "t2", "write_system", ["v1", "v2"], actor="alice", exists=ANY)
        _judge(s, "t2", trials(s)[0].arm_list, 90, {CONTROL: 0.6, "v1": 0.62, "v2": 0.55})
        decision = evaluate_trial(s, "t2")
        assert decision.action == "abort"
        assert active_variant(s, "write_system") == CONTROL
        with pytest.raises(TrialError, match="only a promotion can be reverted"):
            revert(s, "t2", actor="bob")
        by_service = {t.key: t.judged for t in score_trends(s, "service")}
        assert by_service == {"svc-0": 45, "svc-1": 45}


def test_a_trial_needs_variants_and_a_unique_id(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as s:
        with pytest.raises(TrialError):
            start_trial(s, "t3", "write_system", [], actor="a")
        with pytest.raises(TrialError):
            start_trial(s, "t3", "write_system", [CONTROL], actor="a")
        with pytest.raises(TrialError, match=r"no template write_system\.v9\.j2"):
            start_trial(s, "t3", "write_system", ["v9"], actor="a")
        start_trial(s, "t3", "write_system", ["terse"], actor="a")  # ships in llm/prompts/
        with pytest.raises(TrialError, match="exists"):
            start_trial(s, "t3", "write_system", ["terse"], actor="a")
        with pytest.raises(TrialError, match="not an arm"):
            promote(s, "t3", "v9", actor="a", reason="r")


def test_each_incident_gets_its_routed_arm_in_a_running_trial_and_the_promotion_after(
    sessions: sessionmaker[Session],
) -> None:
    with sessions.begin() as s:
        start_trial(s, "t4", "write_system", ["terse"], actor="a")
        arms = {variants_for(s, f"inc-{i}")["write_system"] for i in range(40)}
        assert arms == {(CONTROL, "t4"), ("terse", "t4")}
        assert variants_for(s, "inc-3") == {"write_system": (route("t4", "inc-3", [CONTROL, "terse"]), "t4")}
        promote(s, "t4", "terse", actor="a", reason="reviewed")
        assert variants_for(s, "inc-3") == {"write_system": ("terse", "")}


def test_the_reasoner_renders_the_arm_it_was_routed_to() -> None:
    import json

    from pydantic import SecretStr

    from rootward.engine.dependencies import EngineDeps
    from rootward.engine.entry_point import investigate_bundle
    from rootward.engine.llm_reasoner import LLMReasoner
    from rootward.llm.client import LLMClient
    from rootward.llm.settings import LLMSettings
    from tests.conftest import EXAMPLES
    from tests.fixtures.fake_llm import FakeLLMServer

    with FakeLLMServer() as server:
        settings = LLMSettings(
            provider="openai", base_url=server.base_url, api_key=SecretStr("t"), model="m", agent_hypotheses=0
        )
        server.script.extend([json.dumps({"hypotheses": []}), json.dumps({"sentences": []})])
        reasoner = LLMReasoner(LLMClient(settings), variants={"write_system": "terse"})
        investigate_bundle(EXAMPLES / "shop-deploy-regression-01", EngineDeps(reasoner=reasoner))
    systems = [r["body"]["messages"][0]["content"] for r in server.requests]
    assert any("at most three sentences" in s for s in systems)  # write_system.terse.j2
    assert not any("at most three sentences" in s for s in systems[:1])  # propose stays on its control
