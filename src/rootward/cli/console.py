"""`rootward import`: investigate bundles and record them for the console."""

from __future__ import annotations

from pathlib import Path

import typer

ConfigOption = typer.Option(None, "--config", "-c", help="rootward.yaml (default: $ROOTWARD_CONFIG)")


def import_command(
    bundles: list[Path] = typer.Argument(..., help="Bundle directories or .tar.gz files"),
    config: Path | None = ConfigOption,
    ids: bool = typer.Option(False, "--ids", help="Print only the investigation ids, one a line (for scripts)."),
) -> None:
    """Investigate bundles and record the results, so they appear in the console and `rootward show`."""
    from rootward.actions.remediation import request_pending_proposals
    from rootward.bundle.format import BundleError
    from rootward.cli.serve import settings_or_exit
    from rootward.engine.record import record_bundle
    from rootward.runtime.judge_step import JudgeStep
    from rootward.store.db import make_engine, make_session_factory
    from rootward.store.migrate import upgrade

    settings = settings_or_exit(config)
    upgrade(settings.database_url)
    sessions = make_session_factory(make_engine(settings.database_url))
    judge = JudgeStep(settings.judge, sessions)  # scored like a live investigation, so trends include it
    failed = 0
    for number, path in enumerate(bundles, start=1):
        try:
            with sessions() as session, session.begin():
                row = record_bundle(session, path)
                # Its proposals are put before an approver, as a live investigation's are (its `act` step).
                request_pending_proposals(
                    session,
                    row.id,
                    row.investigation.proposals,
                    settings=settings.worldmodel,
                    ttl=settings.actions.approval_ttl,
                )
        except BundleError as exc:
            failed += 1
            typer.echo(f"[{number}/{len(bundles)}] {path}: error: {exc}", err=True)
            continue
        judge.judge(row.id, row.service, row.investigation)
        if ids:
            typer.echo(row.id)
            continue
        top = f"{row.top_entity} {row.top_fault}" if row.top_entity else "no hypothesis"
        typer.echo(f"[{number}/{len(bundles)}] {row.id} {row.bundle}: {row.status}, {top}")
    if failed:
        raise typer.Exit(1)


def _stored(config: Path | None, investigation_id: str):  # type: ignore[no-untyped-def]
    """The stored investigation by id (or a unique prefix of 6+ characters)."""
    from sqlalchemy import select

    from rootward.cli.database import session_scope, settings_from
    from rootward.store.investigations import InvestigationRow

    with session_scope(settings_from(config)) as session:
        row = session.get(InvestigationRow, investigation_id)
        if row is None and len(investigation_id) >= 6:
            rows = session.scalars(
                select(InvestigationRow).where(InvestigationRow.id.startswith(investigation_id)).limit(2)
            ).all()
            row = rows[0] if len(rows) == 1 else None
        if row is None:
            typer.echo(f"no investigation {investigation_id!r} (see `rootward investigations list`)", err=True)
            raise typer.Exit(1)
        session.expunge(row)
        return row


def stored_id(config: Path | None, investigation_id: str) -> str:
    """The full id of a stored investigation named by its id or a unique prefix (exit 1 if none)."""
    return str(_stored(config, investigation_id).id)


def show_command(
    investigation_id: str = typer.Argument(..., help="Investigation id (or a unique prefix)"),
    as_json: bool = typer.Option(False, "--json", help="The result JSON of the bundle spec"),
    config: Path | None = ConfigOption,
) -> None:
    """Print a stored investigation's RCA as Markdown (or JSON)."""
    from rootward.domain.investigation import InvestigationResult
    from rootward.engine.rca import render_markdown

    row = _stored(config, investigation_id)
    result = InvestigationResult.model_validate(row.result)
    if as_json:
        typer.echo(result.model_dump_json(indent=1))
        return
    typer.echo(
        f"# {row.title}\n\n{row.severity} · {row.service} · tier {row.tier} · {row.created_at:%Y-%m-%d %H:%M} UTC\n"
    )
    typer.echo(render_markdown(result))


def ask_command(
    investigation_id: str = typer.Argument(..., help="Investigation id (or a unique prefix)"),
    question: str = typer.Argument(..., help="The question, e.g. 'what changed before the incident?'"),
    config: Path | None = ConfigOption,
) -> None:
    """Answer a follow-up question from the investigation's evidence, with citations (by the model, if configured)."""
    from rootward.cli.database import settings_from
    from rootward.domain.investigation import InvestigationResult
    from rootward.engine.followup_answer import answer_followup
    from rootward.engine.followup_context import context_of
    from rootward.engine.followup_llm import SYSTEM_PROMPT
    from rootward.llm.trial_runs import active_variant
    from rootward.runtime.llm_charging import charged_llm_client
    from rootward.store.db import make_engine, make_session_factory

    settings = settings_from(config)
    row = _stored(config, investigation_id)
    result = InvestigationResult.model_validate(row.result)
    engine = make_engine(settings.database_url)
    try:
        sessions = make_session_factory(engine)
        with sessions() as session:
            variant = active_variant(session, SYSTEM_PROMPT)
        client = charged_llm_client(settings.llm, sessions, lambda: (row.id, row.service))
        context = context_of(row.bundle_path)
        reply = answer_followup(result, question, context, client=client, severity=row.severity, variant=variant)
    finally:
        engine.dispose()
    typer.echo(reply.text)
    for eid in reply.evidence:
        item = result.evidence[eid]
        typer.echo(f"  {eid}: {item.kind} {item.cite}")
    for cite in reply.cites:
        typer.echo(f"  {cite} (in the incident's data: {row.bundle_path})")
    if reply.note:
        typer.echo(f"({reply.note})")


def register(app: typer.Typer) -> None:
    app.command("import")(import_command)
    app.command("show")(show_command)
    app.command("ask")(ask_command)
