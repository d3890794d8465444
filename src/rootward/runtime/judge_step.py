"""The `judge` step: every finished investigation scored, after its people have been told.

It runs last, so a slow judge model never delays a notification. The
configured judge model scores the published result, or the deterministic
rubric does (`llm.judge`); the scores are kept with the investigation's
service, prompt version and, for a trial sample, its trial and arm, which is
where trends and trial evaluations read them. Judging never fails an
investigation: a judge model that fails leaves the rubric's scores with the
reason in their `note`, and anything else that goes wrong is an
`investigation.judge_failed` audit event naming it. Idempotent on the
investigation: a re-run finds its scores and judges nothing twice.
"""

from __future__ import annotations

import logging

from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.investigation import InvestigationResult
from rootward.llm.judge import DIMENSIONS, Judged, judge_noted
from rootward.llm.settings import JudgeSettings
from rootward.runtime.engine_steps import CURRENT_INVESTIGATION
from rootward.runtime.job_state import JobState, PromptArms
from rootward.runtime.llm_charging import charged_llm_client
from rootward.runtime.prompt_routing import RULE_MODE
from rootward.store.audit import append_audit
from rootward.store.judge_scores import ScoreInput, is_judged, record_scores

log = logging.getLogger("rootward.runtime.judge")
JUDGED, JUDGE_FAILED = "investigation.judged", "investigation.judge_failed"


class JudgeStep:
    def __init__(self, settings: JudgeSettings, sessions: sessionmaker[Session]) -> None:
        self.settings = settings
        self.sessions = sessions
        # The judge model's calls are charged to the investigation it judges, like the engine's.
        self.client = charged_llm_client(settings.model, sessions, CURRENT_INVESTIGATION.get)

    def __call__(self, state: JobState) -> JobState:
        if state.investigation_id is not None:
            self.judge(state.investigation_id, state.service, state.result(), state.prompts)
        return state

    def judge(
        self, investigation_id: str, service: str, result: InvestigationResult, prompts: PromptArms | None = None
    ) -> None:
        """Score one published investigation (the worker's last step, or `rootward import`'s)."""
        if not self.settings.enabled:
            return
        try:
            self._judge(investigation_id, service, result, prompts)
        except Exception as exc:  # the investigation is published already; a judging is not worth losing it
            log.exception("judging investigation %s failed", investigation_id)
            self._failed(investigation_id, f"{type(exc).__name__}: {exc}")

    def _judge(
        self, investigation_id: str, service: str, result: InvestigationResult, prompts: PromptArms | None
    ) -> None:
        with self.sessions() as session:
            if is_judged(session, investigation_id):
                return
        token = CURRENT_INVESTIGATION.set((investigation_id, service))
        try:
            judged = judge_noted(result, self.client)
        finally:
            CURRENT_INVESTIGATION.reset(token)
        with self.sessions() as session, session.begin():
            if is_judged(session, investigation_id):
                return  # another worker judged it while the model answered
            record_scores(session, _score(investigation_id, service, prompts, judged))
            data = {"judge": judged.scores.judge, "overall": judged.scores.overall, "note": judged.note}
            if prompts is not None and prompts.trial_id:
                data |= {"trial_id": prompts.trial_id, "arm": prompts.arm}
            append_audit(session, JUDGED, investigation_id, data)

    def _failed(self, investigation_id: str, reason: str) -> None:
        try:
            with self.sessions() as session, session.begin():
                append_audit(session, JUDGE_FAILED, investigation_id, {"reason": reason})
        except Exception:  # the database itself is down: the log line above is all there is
            log.exception("could not record the failed judging of %s", investigation_id)


def _score(investigation_id: str, service: str, prompts: PromptArms | None, judged: Judged) -> ScoreInput:
    return ScoreInput(
        investigation_id=investigation_id,
        service=service,
        prompt_version=prompts.version if prompts is not None else RULE_MODE,
        judge=judged.scores.judge,
        scores={d: float(getattr(judged.scores, d)) for d in DIMENSIONS},
        trial_id=prompts.trial_id if prompts is not None else "",
        arm=prompts.arm if prompts is not None else "",
        note=judged.note,
    )
