"""The engine's stages as pipeline steps, and the dependencies a worker gives them.

A worker builds one `EngineDeps` from the settings it was started with (its
`--config`): the reasoner for `llm`, whose calls are charged to the
investigation running them; the stored world model, re-read at most once a
minute; the `worldmodel` section. Each engine stage then runs inside a
guard: an engine bug becomes a gap and a failed (template) result, never a
lost incident.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Literal

from sqlalchemy.orm import Session, sessionmaker

from rootward.engine.dependencies import EngineDeps
from rootward.engine.reasoner import Reasoner, RuleReasoner
from rootward.engine.stages import StageFn, initial_state
from rootward.llm.client import LLMClient
from rootward.runtime.job_state import JobState, PromptArms
from rootward.runtime.llm_charging import charged_llm_client
from rootward.runtime.pipeline import Step
from rootward.settings import Settings
from rootward.store.worldmodel import load_dynamics, load_graph_records
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import WorldGraph

log = logging.getLogger("rootward.runtime.steps")
WORLD_TTL_S = 60.0  # how stale the stored world model may be for a prediction
# (investigation id, service) of the engine step running in this thread, for LLM cost attribution.
CURRENT_INVESTIGATION: ContextVar[tuple[str, str] | None] = ContextVar("rootward_investigation", default=None)


class StoredWorldModel:
    """The stored graph (claims still valid) and learned dynamics, re-read at most once a minute."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions
        self._cached: tuple[float, WorldGraph | None, Dynamics | None] | None = None

    def __call__(self) -> tuple[WorldGraph | None, Dynamics | None]:
        now = time.monotonic()
        if self._cached is None or now - self._cached[0] > WORLD_TTL_S:
            with self.sessions() as session:
                graph = WorldGraph.from_records(*load_graph_records(session))
                dynamics = Dynamics.from_records(load_dynamics(session))
            self._cached = (now, graph if len(graph) else None, dynamics if dynamics.stats else None)
        return self._cached[1], self._cached[2]


def worker_client(settings: Settings, sessions: sessionmaker[Session]) -> LLMClient | None:
    """The worker's model client, its calls charged to the investigation running them; None in rule mode."""
    return charged_llm_client(settings.llm, sessions, CURRENT_INVESTIGATION.get)


def worker_deps(
    settings: Settings, sessions: sessionmaker[Session], client: LLMClient | None | Literal["build"] = "build"
) -> EngineDeps:
    """The engine's dependencies for a worker started with `settings` (its `--config`)."""
    reasoner: Reasoner = RuleReasoner()
    if client == "build":
        client = worker_client(settings, sessions)
    if client is not None:
        from rootward.engine.llm_reasoner import build_reasoner

        reasoner = build_reasoner(settings.llm, client=client)
    return EngineDeps(
        reasoner=reasoner,
        world=StoredWorldModel(sessions),
        worldmodel=settings.worldmodel,
        limits=settings.engine.budget_limits(),
    )


def start_engine_step(deps: EngineDeps, route: Callable[[JobState], PromptArms | None] | None = None) -> Step:
    """The engine's initial state, and (LLM mode, `route`) the prompt arms every later stage renders."""

    def run(state: JobState) -> JobState:
        if state.bundle_path is None:
            raise ValueError("the snapshot step has not written a bundle yet")
        prompts = route(state) if route is not None else None
        return state.model_copy(update={"engine": initial_state(state.bundle_path, deps), "prompts": prompts})

    return Step("start_engine", run)


def engine_step(name: str, stage: StageFn, deps: EngineDeps | Callable[[JobState], EngineDeps]) -> Step:
    """One engine stage as a step; a failure is kept as the gap that names it, and later stages skip.

    `deps` may depend on the state: the reasoner renders the investigation's routed prompt arms."""

    def run(state: JobState) -> JobState:
        if state.engine_failed or state.engine is None:
            return state
        token = CURRENT_INVESTIGATION.set((str(state.job_id), state.service))
        try:
            given = deps(state) if callable(deps) else deps
            return state.model_copy(update={"engine": stage(state.engine, given)})
        except Exception as exc:  # the incident must not be lost to an engine bug
            log.exception("engine stage %s failed for job %s", name, state.job_id)
            return state.model_copy(update={"engine_failure": f"engine failed at {name}: {type(exc).__name__}: {exc}"})
        finally:
            CURRENT_INVESTIGATION.reset(token)

    return Step(name, run)
