"""The scheduled evaluation of prompt trials: a `serve` background loop and `rootward prompts evaluate`.

Each running trial is evaluated in its own transaction with the rule of
`llm.trials.decide` (wait until every arm has 15 judged samples, then promote
a variant that beats the control by 0.05 at p < 0.1, else abort), which
`llm.trial_runs.evaluate_trial` audits. Evaluating is idempotent (a wait
changes nothing), so the loop runs at start and then once an interval,
however often `serve` restarts; when two replicas race, the trial row's lock
lets one decide and the other finds it decided.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy.orm import Session, sessionmaker

from rootward.llm.settings import JudgeSettings
from rootward.llm.trial_runs import TrialError, evaluate_trial, trials
from rootward.llm.trials import Decision

log = logging.getLogger("rootward.runtime.trials")


def evaluate_trials(sessions: sessionmaker[Session], *, actor: str = "scheduler") -> dict[str, Decision]:
    """Every running trial's decision; one that another process decided meanwhile is left out."""
    with sessions() as session:
        running = [t.trial_id for t in trials(session) if t.status == "running"]
    out: dict[str, Decision] = {}
    for trial_id in running:
        try:
            with sessions() as session, session.begin():
                out[trial_id] = evaluate_trial(session, trial_id, actor=actor)
        except TrialError as exc:  # decided by another replica between the listing and the lock
            log.info("prompt trial %s not evaluated: %s", trial_id, exc)
    return out


def trial_loop(settings: JudgeSettings, sessions: sessionmaker[Session]) -> Callable[[threading.Event], None] | None:
    """A `serve` background loop evaluating running trials every `evaluate_every_s`; None when that is 0."""
    if settings.evaluate_every_s <= 0:
        return None

    def run(stop: threading.Event) -> None:
        while True:
            try:
                for trial_id, decision in evaluate_trials(sessions).items():
                    if decision.action != "wait":
                        log.info("prompt trial %s: %s (%s)", trial_id, decision.action, decision.reason)
            except Exception:  # a database blip: the next interval tries again
                log.exception("prompt trial evaluation failed")
            if stop.wait(settings.evaluate_every_s):
                return

    run.__name__ = "prompt-trials"
    return run
