"""Pipeline definition and the placeholder steps the engine will replace."""

from __future__ import annotations

import pytest

from rootward.runtime.job_state import JobState
from rootward.runtime.pipeline import (
    DEFAULT_STEP_NAMES,
    ENV_PLACEHOLDER_STEP_S,
    Pipeline,
    Step,
    default_pipeline,
    placeholder_delay_s,
)


def test_pipeline_rejects_repeated_step_names() -> None:
    with pytest.raises(ValueError, match="repeated: a"):
        Pipeline([Step("a", dict), Step("b", dict), Step("a", dict)])


def test_pipeline_rejects_empty_step_list() -> None:
    with pytest.raises(ValueError):
        Pipeline([])


def test_default_pipeline_has_the_investigation_steps_in_order() -> None:
    assert (
        default_pipeline().names
        == DEFAULT_STEP_NAMES
        == (
            "assemble_context",
            "hypotheses",
            "specialists",
            "verify",
            "rca",
            "risk_gate",
        )
    )


def test_placeholder_steps_record_what_ran_without_touching_other_state() -> None:
    state = JobState(job_id="j1", group_id="g1", tier="L1")
    for step in default_pipeline().steps:
        state = step.run(state)
    assert state.group_id == "g1" and state.engine is None and state.investigation_id is None
    assert [entry.step for entry in state.steps] == list(DEFAULT_STEP_NAMES)
    assert all(entry.placeholder for entry in state.steps)


def test_placeholder_delay_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_PLACEHOLDER_STEP_S, "0.25")
    assert placeholder_delay_s() == 0.25
    monkeypatch.setenv(ENV_PLACEHOLDER_STEP_S, "soon")
    with pytest.raises(ValueError, match="number of seconds"):
        placeholder_delay_s()
