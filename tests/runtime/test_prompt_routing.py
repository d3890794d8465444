"""Prompt trials in the live path: the routed arm is rendered, recorded and credited with the judge score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import SecretStr
from sqlalchemy import select

from rootward.llm.settings import LLMSettings
from rootward.llm.trial_runs import promote, start_trial
from rootward.llm.trials import CONTROL, route
from rootward.runtime.investigation_steps import InvestigationSteps
from rootward.runtime.job_state import JobState
from rootward.runtime.prompt_routing import PromptRouter
from rootward.sources.bundle import bundle_sources
from rootward.store.audit import AuditRow
from rootward.store.investigation_prompts import prompts_of
from rootward.store.judge_scores import JudgeScoreRow
from tests.fixtures.fake_llm import FakeLLMServer
from tests.runtime.judged_pipeline import PipelineEnv, pipeline_env, run_pipeline

ARMS = [CONTROL, "terse"]


@pytest.fixture
def env(tmp_path: Path) -> PipelineEnv:
    return pipeline_env(tmp_path)


TERSE = "at most three sentences"  # only write_system.terse.j2 says this


def _state(group: str, job: str = "") -> JobState:
    return JobState(job_id=job or f"job-{group}", group_id=group, tier="L1", bundle_path="unused")


def test_each_incident_keeps_its_arm_across_resumes_and_reruns(env) -> None:  # type: ignore[no-untyped-def]
    _, sessions, _, _ = env
    with sessions() as s, s.begin():
        start_trial(s, "t-terse", "write_system", ["terse"], actor="test")
    router = PromptRouter(sessions, llm_mode=True)
    arms = {}
    for i in range(40):
        first = router(_state(f"g{i}"))
        assert first is not None and first.trial_id == "t-terse"
        assert first.arm == route("t-terse", f"g{i}", ARMS) and first.variants == {"write_system": first.arm}
        assert first.version == f"write_system@{first.arm}"
        assert router(_state(f"g{i}")) == first  # a resumed worker
        assert router(_state(f"g{i}", job=f"rerun-{i}")) == first  # a re-investigation of the same incident
        arms[f"g{i}"] = first.arm
    assert set(arms.values()) == set(ARMS)
    with sessions() as s, s.begin():
        promote(s, "t-terse", "terse", actor="test", reason="reviewed")
        kept = prompts_of(s, "job-g0")
    assert kept is not None and kept.arm == arms["g0"]  # the record of what ran does not change
    after = router(_state("g-new"))
    assert after is not None and (after.variants, after.trial_id, after.version) == (
        {"write_system": "terse"},
        "",
        "write_system@terse",
    )
    assert PromptRouter(sessions, llm_mode=False)(_state("g-rule")) is None  # rule mode renders no prompt


@pytest.mark.parametrize("arm", ARMS)
def test_llm_mode_renders_the_routed_arm_and_its_judge_score_counts_for_it(env, arm: str) -> None:  # type: ignore[no-untyped-def]
    settings, sessions, bundle, job = env
    # the first trial id under which this incident routes to `arm`, so each arm's rendering is seen
    trial = next(t for t in (f"t-terse-{n}" for n in range(64)) if route(t, job.group_id, ARMS) == arm)
    with sessions() as s, s.begin():
        start_trial(s, trial, "write_system", ["terse"], actor="test")
    with FakeLLMServer() as server:
        server.script.extend(['{"hypotheses": []}', '{"sentences": []}'])
        llm = LLMSettings(
            provider="openai", base_url=server.base_url, api_key=SecretStr("t"), model="m", agent_hypotheses=0
        )
        live = settings.model_copy(update={"llm": llm})
        state = run_pipeline(InvestigationSteps(live, sessions, sources=bundle_sources(bundle)), job)
    assert state.prompts is not None and (state.prompts.trial_id, state.prompts.arm) == (trial, arm)
    systems = [r["body"]["messages"][0]["content"] for r in server.requests]
    assert len(systems) == 2  # propose, then write
    assert (TERSE in systems[1]) == (arm == "terse") and TERSE not in systems[0]
    with sessions() as s:
        [score] = list(s.scalars(select(JudgeScoreRow)))
        assert (score.trial_id, score.arm, score.prompt_version) == (trial, arm, f"write_system@{arm}")
        recorded = s.scalar(select(AuditRow).where(AuditRow.kind == "investigation.recorded"))
        assert recorded is not None
        assert json.loads(recorded.data) | {"group_id": ""} == {
            "status": state.result().status,
            "group_id": "",
            "prompt_version": f"write_system@{arm}",
            "trial_id": trial,
            "arm": arm,
        }
