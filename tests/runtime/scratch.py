"""A pipeline over a state that takes any extra key: runtime tests leave marks without investigating."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ConfigDict

from rootward.runtime.job_state import JobState
from rootward.runtime.pipeline import Pipeline, Step, StepFn


class ScratchState(JobState):
    model_config = ConfigDict(extra="allow")


def mark(**values: Any) -> StepFn:
    """A step that sets `values` on the state (kept as extra keys, checkpointed like any other)."""
    return lambda state: state.model_copy(update=values)


def scratch_pipeline(steps: Sequence[Step]) -> Pipeline:
    return Pipeline(steps, state_type=ScratchState)
