"""An investigation as an ordered list of named steps over a typed state.

Each step is a plain function `JobState -> JobState`; the runtime checkpoints
the new state's JSON after every step (runtime/checkpoint.py), so the state
holds everything later steps need: a resumed worker sees nothing but the last
checkpoint. A pipeline may use a subclass of `JobState` (`state_type`) for
state of its own. The step list is pluggable: workers run the
pipeline chosen by `runtime.pipeline` (`runtime/worker.py: pipeline_for`), the
real investigation (`runtime/investigation_steps.py`) or the placeholders here.

The placeholders do honest bookkeeping (what ran, when) and nothing else; they
exercise the queue, leases and checkpoints without any data source. The
environment variable `ROOTWARD_PLACEHOLDER_STEP_S` makes each placeholder
sleep that long, so tests and demos can stop a worker mid-investigation.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic_core import PydanticSerializationError

from rootward.runtime.fencing import current_fence
from rootward.runtime.job_state import JobState, StepRecord
from rootward.store.jobs import Job

StepFn = Callable[[JobState], JobState]

ENV_PLACEHOLDER_STEP_S = "ROOTWARD_PLACEHOLDER_STEP_S"

# The investigation of DESIGN.md, in order.
DEFAULT_STEP_NAMES = ("assemble_context", "hypotheses", "specialists", "verify", "rca", "risk_gate")


@dataclass(frozen=True)
class Step:
    name: str
    run: StepFn


class Pipeline:
    """The ordered steps of an investigation; names are unique and identify checkpoints."""

    def __init__(self, steps: Sequence[Step], state_type: type[JobState] = JobState) -> None:
        if not steps:
            raise ValueError("a pipeline needs at least one step")
        names = [step.name for step in steps]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"step names must be unique, repeated: {', '.join(duplicates)}")
        self.steps: tuple[Step, ...] = tuple(steps)
        self.state_type = state_type

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(step.name for step in self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def initial_state(self, job: Job) -> JobState:
        """What the first step sees: the job's identity, nothing else yet."""
        return self.state_type.of(job)

    def load_state(self, raw: dict[str, Any], *, where: str = "checkpoint") -> JobState:
        """A checkpoint's JSON as this pipeline's state (older checkpoints migrated, or a clear error)."""
        return self.state_type.load(raw, where=where)

    def round_trip(self, state: JobState) -> JobState:
        """The state exactly as a resumed worker would load it from its checkpoint."""
        if not isinstance(state, self.state_type):
            raise TypeError(f"returned {type(state).__name__}, not {self.state_type.__name__}")
        try:
            dumped = state.model_dump_json()
        except PydanticSerializationError as exc:
            raise TypeError(f"state is not JSON-serialisable: {exc}") from None
        return self.state_type.model_validate_json(dumped)


def placeholder_step(name: str, delay_s: float = 0.0) -> Step:
    """A step that records that it ran (in `state.steps`) and does no investigating."""

    def run(state: JobState) -> JobState:
        if delay_s > 0:
            fence = current_fence()
            if fence is None:
                time.sleep(delay_s)
            elif fence.wait(delay_s):  # a fenced-off worker stops at once, like a real long step
                fence.check()
        done = [*state.steps, StepRecord(step=name, at=datetime.now(UTC).isoformat())]
        return state.model_copy(update={"steps": done})

    return Step(name, run)


def placeholder_delay_s() -> float:
    raw = os.environ.get(ENV_PLACEHOLDER_STEP_S, "").strip()
    if not raw:
        return 0.0
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{ENV_PLACEHOLDER_STEP_S} must be a number of seconds, got {raw!r}") from None
    if value < 0:
        raise ValueError(f"{ENV_PLACEHOLDER_STEP_S} must not be negative, got {raw!r}")
    return value


def default_pipeline() -> Pipeline:
    """The bookkeeping-only pipeline of `runtime.pipeline: placeholder`, with the investigation's step names."""
    delay = placeholder_delay_s()
    return Pipeline([placeholder_step(name, delay) for name in DEFAULT_STEP_NAMES])
