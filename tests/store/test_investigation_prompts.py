"""The prompt arms an investigation ran with, and the judge score's fallback note (migration 0015)."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from rootward.store.base import Base
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigation_prompts import InvestigationPrompts, prompts_of, record_prompts
from rootward.store.judge_scores import ScoreInput, fallback_count, record_scores

MINE = {"investigation_prompts", "judge_scores"}


def test_the_migration_matches_the_tables(migrated_db_url: str) -> None:
    engine = make_engine(migrated_db_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        engine.dispose()
    assert [d for d in diff if any(t in repr(d) for t in MINE)] == []


def test_the_first_record_of_an_investigations_arms_stands(migrated_db_url: str) -> None:
    engine = make_engine(migrated_db_url)
    with make_session_factory(engine)() as s:
        first = InvestigationPrompts("inv-1", "write_system@terse", {"write_system": "terse"}, "t1", "terse")
        record_prompts(s, first)
        record_prompts(s, InvestigationPrompts("inv-1", "control", {}, "", ""))  # a re-run step
        assert prompts_of(s, "inv-1") == first and prompts_of(s, "inv-2") is None
        dims = dict.fromkeys(("evidence_grounding", "root_cause_specificity", "actionability", "calibration"), 0.5)
        record_scores(s, ScoreInput("inv-1", "svc", "control", "rubric-1", {**dims, "clarity": 0.5}, note="HTTP 500"))
        record_scores(s, ScoreInput("inv-2", "svc", "control", "rubric-1", {**dims, "clarity": 0.5}))
        assert fallback_count(s) == 1
    engine.dispose()
