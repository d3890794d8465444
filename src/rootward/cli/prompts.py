"""`rootward prompts trials|start|evaluate|promote|revert` and `rootward judge`: the learning loop's verbs.

Every change goes through `llm.trial_runs`, which audits it in the same
transaction; `judge` scores a finished investigation's result JSON with the
configured judge model or the deterministic rubric and, with `--store`, keeps
the scores against it; without a file it reports the stored trends and the
judge's agreement with human feedback.
"""

from __future__ import annotations

import getpass
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rootward.cli.database import session_scope, settings_from

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from rootward.settings import Settings

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
def evaluate(
    trial: Annotated[str | None, typer.Argument(help="One trial (default: every running trial).")] = None,
    config: Config = None,
) -> None:
    """Run the trial's test: wait, promote the winning variant, or abort (what `serve` does on schedule)."""
    from rootward.llm.trial_runs import TrialError, evaluate_trial

    if trial is None:
        _evaluate_running(settings_from(config))
        return
    with session_scope(settings_from(config)) as session:
        try:
            decision = evaluate_trial(session, trial, actor=getpass.getuser())
        except TrialError as exc:
            _fail(exc)
        session.commit()
    typer.echo(f"{decision.action}: {decision.reason}")


def _evaluate_running(settings: Settings) -> None:
    from rootward.runtime.trial_schedule import evaluate_trials
    from rootward.store.db import make_engine, make_session_factory

    engine = make_engine(settings.database_url)
    try:
        decisions = evaluate_trials(make_session_factory(engine), actor=getpass.getuser())
    finally:
        engine.dispose()
    for trial_id, decision in decisions.items():
        typer.echo(f"{trial_id}: {decision.action}: {decision.reason}")
    if not decisions:
        typer.echo("no running prompt trials")


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
    result: Annotated[
        Path | None,
        typer.Argument(help="An investigation's result JSON (rootward investigate --json); none: the report."),
    ] = None,
    store: Annotated[str | None, typer.Option("--store", help="Keep the scores against this investigation id.")] = None,
    service: Annotated[str, typer.Option("--service")] = "",
    prompt_version: Annotated[str, typer.Option("--prompt-version")] = "",
    config: Config = None,
) -> None:
    """Score a finished investigation on the five dimensions (the configured judge model, else the rubric);
    without RESULT, report the stored scores: trends and the judge's agreement with human feedback."""
    from rootward.domain.investigation import InvestigationResult
    from rootward.llm.client import LLMClient
    from rootward.llm.judge import DIMENSIONS, judge_noted
    from rootward.store.judge_scores import ScoreInput, record_scores

    settings = settings_from(config)
    if result is None:
        with session_scope(settings) as session:
            typer.echo(judge_report(session))
        return
    model = settings.judge.model
    client = LLMClient(model) if model.provider != "none" else None
    judged = judge_noted(InvestigationResult.model_validate_json(result.read_text(encoding="utf-8")), client)
    if judged.note:
        typer.echo(judged.note, err=True)
    typer.echo(json.dumps(judged.scores.to_dict(), indent=2, sort_keys=True))
    if store is not None:
        dims = {d: float(getattr(judged.scores, d)) for d in DIMENSIONS}
        score = ScoreInput(store, service, prompt_version, judged.scores.judge, dims, note=judged.note)
        with session_scope(settings) as session:
            record_scores(session, score)
            session.commit()
            typer.echo(judge_report(session, trends=False), err=True)  # stdout stays the scores' JSON


def judge_report(session: Session, *, trends: bool = True) -> str:
    """Mean scores per service and prompt version, and each judge's agreement with human feedback."""
    from rootward.store.judge_scores import judge_agreement, score_trends

    lines = []
    if trends:
        for by in ("service", "prompt_version"):
            rows = score_trends(session, by)
            lines.append(f"by {by}:" if rows else f"by {by}: no judged investigations")
            lines += [f"  {t.key or '-'}  judged={t.judged}  overall={t.overall:.3f}" for t in rows]
    agreement = judge_agreement(session)
    lines.append("agreement with human feedback:" if agreement else "agreement with human feedback: no rated RCAs")
    for a in agreement:
        rate = "-" if a.rate is None else f"{a.rate:.0%}"
        lines.append(f"  {a.judge}  {rate} ({a.agreed} of {a.compared} rated RCAs)")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    app.add_typer(prompts_app, name="prompts")
    app.command("judge")(judge)
