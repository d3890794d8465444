"""`rootward prompts trials|start|evaluate|promote|revert` and `rootward judge`: the learning loop's verbs.

Every change goes through `llm.trial_runs`, which audits it in the same
transaction; `judge` scores a finished investigation's result JSON with the
deterministic rubric and, with `--store`, keeps the scores against it.
"""

from __future__ import annotations

import getpass
import json
from pathlib import Path
from typing import Annotated

import typer

from rootward.cli.database import session_scope, settings_from

prompts_app = typer.Typer(help="Prompt trials: variants against the control, promoted only on evidence.")
Config = Annotated[Path | None, typer.Option("--config", "-c", help="rootward.yaml")]


def _fail(exc: Exception) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(1)


@prompts_app.command("trials")
def list_trials(config: Config = None, as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Every trial with its arms, state and the samples judged per arm."""
    from rootward.llm.trial_runs import trials
    from rootward.store.judge_scores import trial_samples

    with session_scope(settings_from(config)) as session:
        rows = [
            {
                "trial": t.trial_id,
                "template": t.template,
                "status": t.status,
                "promoted": t.promoted_arm,
                "samples": {a: len(trial_samples(session, t.trial_id).get(a, [])) for a in t.arm_list},
                "reason": t.reason,
            }
            for t in trials(session)
        ]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    for r in rows or [{"trial": "no prompt trials"}]:
        typer.echo("  ".join(f"{k}={v}" if k != "trial" else str(v) for k, v in r.items() if v != ""))


@prompts_app.command("start")
def start(
    trial: str,
    template: str,
    variant: Annotated[list[str], typer.Option("--variant", help="A variant arm (repeatable).")],
    config: Config = None,
) -> None:
    """Start a trial of TEMPLATE: the control plus each --variant."""
    from rootward.llm.trial_runs import TrialError, start_trial

    with session_scope(settings_from(config)) as session:
        try:
            row = start_trial(session, trial, template, variant, actor=getpass.getuser())
        except TrialError as exc:
            _fail(exc)
        session.commit()
        typer.echo(f"started {row.trial_id}: {', '.join(row.arm_list)}")


@prompts_app.command("evaluate")
def evaluate(trial: str, config: Config = None) -> None:
    """Run the trial's test: wait, promote the winning variant, or abort."""
    from rootward.llm.trial_runs import TrialError, evaluate_trial

    with session_scope(settings_from(config)) as session:
        try:
            decision = evaluate_trial(session, trial, actor=getpass.getuser())
        except TrialError as exc:
            _fail(exc)
        session.commit()
    typer.echo(f"{decision.action}: {decision.reason}")


@prompts_app.command("promote")
def promote_cmd(
    trial: str,
    arm: str,
    reason: Annotated[str, typer.Option("--reason", help="Why, for the audit log.")],
    config: Config = None,
) -> None:
    """Promote ARM by hand (audited with the reason)."""
    from rootward.llm.trial_runs import TrialError, promote

    with session_scope(settings_from(config)) as session:
        try:
            promote(session, trial, arm, actor=getpass.getuser(), reason=reason)
        except TrialError as exc:
            _fail(exc)
        session.commit()
    typer.echo(f"promoted {arm} of {trial}")


@prompts_app.command("revert")
def revert_cmd(trial: str, config: Config = None) -> None:
    """Undo a promotion: the template's control is in use again."""
    from rootward.llm.trial_runs import TrialError, revert

    with session_scope(settings_from(config)) as session:
        try:
            revert(session, trial, actor=getpass.getuser())
        except TrialError as exc:
            _fail(exc)
        session.commit()
    typer.echo(f"reverted {trial}: control in use")


def judge(
    result: Annotated[Path, typer.Argument(help="An investigation's result JSON (rootward investigate --json).")],
    store: Annotated[str | None, typer.Option("--store", help="Keep the scores against this investigation id.")] = None,
    service: Annotated[str, typer.Option("--service")] = "",
    prompt_version: Annotated[str, typer.Option("--prompt-version")] = "",
    config: Config = None,
) -> None:
    """Score a finished investigation on the five rubric dimensions."""
    from rootward.domain.investigation import InvestigationResult
    from rootward.llm.judge import rubric
    from rootward.store.judge_scores import ScoreInput, record_scores

    scores = rubric(InvestigationResult.model_validate_json(result.read_text(encoding="utf-8")))
    typer.echo(json.dumps(scores.to_dict(), indent=2, sort_keys=True))
    if store is not None:
        dims = {k: v for k, v in scores.to_dict().items() if isinstance(v, float) and k != "overall"}
        with session_scope(settings_from(config)) as session:
            record_scores(session, ScoreInput(store, service, prompt_version, scores.judge, dims))
            session.commit()


def register(app: typer.Typer) -> None:
    app.add_typer(prompts_app, name="prompts")
    app.command("judge")(judge)
