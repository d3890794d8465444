"""Prompt trials in the live path: each LLM-mode investigation's arm, and a reasoner that renders it.

When the engine starts, the investigation's alert group (its incident) is
routed in the running trial by `llm.trials.route` (BLAKE2b of trial and
incident id), every other template renders its promoted variant or its
control, and the result is kept twice: in the checkpointed state, so every
later stage (and a resumed worker) renders the same arm, and in
`investigation_prompts`, so the console and the judge step read it too. A
re-investigation of the same incident lands in the same arm. Rule mode
renders no prompt, so it is nobody's sample.
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy.orm import Session, sessionmaker

from rootward.engine.dependencies import EngineDeps
from rootward.engine.llm_reasoner import LLMReasoner
from rootward.engine.model_agent import AgentLimits
from rootward.llm.client import LLMClient
from rootward.llm.settings import LLMSettings
from rootward.llm.trial_runs import variants_for
from rootward.llm.trials import prompt_version
from rootward.runtime.job_state import JobState, PromptArms
from rootward.store.investigation_prompts import InvestigationPrompts, prompts_of, record_prompts

RULE_MODE = "rule"  # the prompt version of an investigation no model prompt was rendered for


def route_prompts(session: Session, incident_id: str) -> PromptArms:
    """The arms `incident_id` renders now: its routed arm in the running trial, promoted variants elsewhere."""
    routed = variants_for(session, incident_id)
    variants = {template: arm for template, (arm, _) in routed.items()}
    sample = next(((trial, arm) for arm, trial in routed.values() if trial), ("", ""))
    return PromptArms(version=prompt_version(variants), variants=variants, trial_id=sample[0], arm=sample[1])


class PromptRouter:
    """`start_engine`'s lookup: the investigation's arms, recorded once; None in rule mode."""

    def __init__(self, sessions: sessionmaker[Session], llm_mode: bool) -> None:
        self.sessions = sessions
        self.llm_mode = llm_mode

    def __call__(self, state: JobState) -> PromptArms | None:
        if not self.llm_mode:
            return None
        investigation_id = str(state.job_id)
        with self.sessions() as session, session.begin():
            kept = prompts_of(session, investigation_id)  # routed before a crash: the same arm again
            if kept is not None:
                return PromptArms(
                    version=kept.prompt_version, variants=kept.variants, trial_id=kept.trial_id, arm=kept.arm
                )
            arms = route_prompts(session, state.group_id)
            record_prompts(
                session, InvestigationPrompts(investigation_id, arms.version, arms.variants, arms.trial_id, arms.arm)
            )
        return arms


class RoutedDeps:
    """The worker's engine dependencies, with a reasoner rendering the investigation's routed arms."""

    def __init__(self, base: EngineDeps, llm: LLMSettings, client: LLMClient | None) -> None:
        self.base = base
        self._llm = llm
        self._client = client
        self._cache: dict[tuple[tuple[str, str], ...], EngineDeps] = {}

    def __call__(self, state: JobState) -> EngineDeps:
        variants = {t: a for t, a in (state.prompts.variants if state.prompts else {}).items() if a != "control"}
        if self._client is None or not variants:
            return self.base
        key = tuple(sorted(variants.items()))
        if key not in self._cache:
            limits = AgentLimits(steps=self._llm.agent_steps, hypotheses=self._llm.agent_hypotheses)
            reasoner = LLMReasoner(self._client, limits=limits, variants=variants)
            self._cache[key] = replace(self.base, reasoner=reasoner)
        return self._cache[key]
