"""The steps a worker runs for an alert group, from snapshot to notification.

snapshot → the engine's stages (context … risk gate) → record → act → notify → judge.
Each step is `JobState -> JobState`, so the runtime checkpoints between them
and a resumed worker continues where the dead one stopped. The steps that
write (record, act, notify) are idempotent on the job id: a step re-run after
a crash between its write and its checkpoint finds its own earlier write
instead of doing it twice. Each step lives in its own module; this one only
wires them to one process's settings, database and sources.

Degrade, never block: a failed engine still yields a recorded, notified
(template) result; a dead source is a gap in the snapshot; a channel that is
down keeps the message in the outbox.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from rootward.engine.stages import STAGES
from rootward.runtime.act_step import ActStep
from rootward.runtime.engine_steps import engine_step, start_engine_step, worker_client, worker_deps
from rootward.runtime.group_snapshot import GroupSnapshot
from rootward.runtime.judge_step import JudgeStep
from rootward.runtime.knowledge_snapshot import KnowledgeSnapshotter
from rootward.runtime.notify_step import NotifyStep
from rootward.runtime.pipeline import Pipeline, Step
from rootward.runtime.prompt_routing import PromptRouter, RoutedDeps
from rootward.runtime.record_step import RecordStep
from rootward.settings import Settings
from rootward.sources.base import SourceSet


class InvestigationSteps:
    """Binds the steps to one process's settings (its `--config`), database and sources."""

    def __init__(self, settings: Settings, sessions: sessionmaker[Session], sources: SourceSet | None = None) -> None:
        self.settings = settings
        self.sessions = sessions
        self._sources = sources
        knowledge = KnowledgeSnapshotter(sessions)
        client = worker_client(settings, sessions)
        self.deps = worker_deps(settings, sessions, client)
        self.routed = RoutedDeps(self.deps, settings.llm, client)
        self.route = PromptRouter(sessions, llm_mode=client is not None)
        self.snapshot = GroupSnapshot(settings, sessions, self.sources, knowledge)
        self.record = RecordStep(sessions)
        self.act = ActStep(settings, sessions, knowledge)
        self.notify = NotifyStep(settings.notify, sessions, settings.actions.executor.runnable_verbs())
        self.judge = JudgeStep(settings.judge, sessions)

    def sources(self, alerts: Any) -> SourceSet:
        if self._sources is not None:
            return self._sources
        from rootward.sources.live import build_live_sources
        from rootward.sources.stored_changes import StoredChangeSource

        return build_live_sources(
            self.settings.connector_sections(),
            self.settings.topology,
            recorded_changes=StoredChangeSource(self.sessions),
            alerts=alerts,
        )

    def pipeline(self) -> Pipeline:
        steps = [Step("snapshot", self.snapshot), start_engine_step(self.deps, self.route)]
        steps += [engine_step(name, stage, self.routed) for name, stage in STAGES]
        steps += [Step("record", self.record), Step("act", self.act), Step("notify", self.notify)]
        steps += [Step("judge", self.judge)]
        pipeline = Pipeline(steps)
        assert pipeline.names == step_names()
        return pipeline


def step_names() -> tuple[str, ...]:
    """The investigation pipeline's step names, without building sources."""
    return ("snapshot", "start_engine", *(name for name, _ in STAGES), "record", "act", "notify", "judge")
