"""`rootward incidents ...`: the life cycle from the command line (list, ack, assign, resolve, timeline).

The same store functions as the console and the API; `--as USER` names who
acts, who needs the responder role as in the console.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from rootward.cli.database import session_scope, settings_from

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from rootward.settings import Settings

incidents_app = typer.Typer(
    help="Incidents: list by state, acknowledge, assign, resolve, timeline.", no_args_is_help=True
)
ConfigOption = typer.Option(None, "--config", "-c", help="rootward.yaml (default: $ROOTWARD_CONFIG)")
AsOption = typer.Option(..., "--as", help="The user who acts (needs the responder role).")


@incidents_app.command("list")
def list_cmd(
    state: str | None = typer.Option(None, "--state", help="open, acknowledged or resolved"),
    source: str | None = typer.Option(None, "--source", help="live, simulated, imported or replay"),
    as_json: bool = typer.Option(False, "--json"),
    config: Path | None = ConfigOption,
) -> None:
    """Incidents newest first, with their state, assignee and source."""
    from rootward.store.investigations import IncidentFilter, list_investigations

    with session_scope(settings_from(config)) as session:
        rows = list_investigations(session, IncidentFilter(state=state, source=source), limit=200)
    if as_json:
        keys = ("id", "title", "service", "status", "state", "assignee", "source", "top_entity", "top_fault")
        typer.echo(json.dumps([{k: getattr(r, k) for k in keys} for r in rows], indent=1))
        return
    for r in rows:
        cause = f"{r.top_entity} {r.top_fault}" if r.top_entity else "-"
        typer.echo(f"{r.id}  {r.state:<12} {r.source:<9} {r.assignee or '-':<10} {r.title}  [{cause}]")


def _acting(session: Session, name: str) -> None:
    """Exit 1 unless `name` is an enabled user with the responder role (as the console requires)."""
    from sqlalchemy import select

    from rootward.domain.roles import Role
    from rootward.store.users import UserRow

    row = session.scalar(select(UserRow).where(UserRow.name == name, UserRow.disabled_at.is_(None)))
    if row is None:
        typer.echo(f"refused: no active user {name!r}", err=True)
        raise typer.Exit(1)
    if not Role(row.role).at_least(Role.RESPONDER):
        typer.echo(f"refused: {name} is {row.role}; changing an incident needs the responder role", err=True)
        raise typer.Exit(1)


def _change(config: Path | None, investigation_id: str, who: str, kind: str, **args: str) -> None:
    from rootward.cli.console import stored_id
    from rootward.store.incident_events import LifecycleRefused, Resolution, acknowledge, assign, resolve

    settings = settings_from(config)
    full_id = stored_id(config, investigation_id)
    try:
        with session_scope(settings) as session, session.begin():
            _acting(session, who)
            if kind == "acknowledge":
                row = acknowledge(session, full_id, who)
            elif kind == "assign":
                row = assign(session, full_id, args["assignee"], who)
            else:
                row = resolve(session, full_id, who, Resolution(args["entity"], args["fault"], args["note"]))
            state, assignee = row.state, row.assignee
    except LifecycleRefused as exc:
        typer.echo(f"refused: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"{full_id}: {state}" + (f", assigned to {assignee}" if assignee else ""))
    if kind == "resolve":
        _teach(settings, full_id, args, who)


def _teach(settings: Settings, investigation_id: str, args: dict[str, str], who: str) -> None:
    from rootward.runtime.resolution import teach_from_confirmed
    from rootward.store.db import make_engine, make_session_factory

    engine = make_engine(settings.database_url)
    try:
        taught = teach_from_confirmed(
            make_session_factory(engine), investigation_id, args["entity"], args["fault"], note=args["note"], by=who
        )
    finally:
        engine.dispose()
    if taught.draft:
        typer.echo("runbook draft proposed (rootward kb drafts list)")
    if taught.skipped:
        typer.echo(f"not learned: {taught.skipped}")


@incidents_app.command("ack")
def ack_cmd(
    investigation_id: str = typer.Argument(...), who: str = AsOption, config: Path | None = ConfigOption
) -> None:
    """Acknowledge: you are on it (assigned to you unless someone already is)."""
    _change(config, investigation_id, who, "acknowledge")


@incidents_app.command("assign")
def assign_cmd(
    investigation_id: str = typer.Argument(...),
    assignee: str = typer.Argument(..., help="Who owns it now."),
    who: str = AsOption,
    config: Path | None = ConfigOption,
) -> None:
    """Assign the incident to someone."""
    _change(config, investigation_id, who, "assign", assignee=assignee)


@incidents_app.command("resolve")
def resolve_cmd(
    investigation_id: str = typer.Argument(...),
    who: str = AsOption,
    root_cause: str = typer.Option(
        "",
        "--root-cause",
        help="The confirmed root cause as ENTITY or ENTITY/FAULT_TYPE (default: the top hypothesis).",
    ),
    note: str = typer.Option("", "--note", help="What fixed it."),
    config: Path | None = ConfigOption,
) -> None:
    """Resolve with the confirmed root cause; it becomes the RCA's feedback and feeds the learning."""
    entity, _, fault = root_cause.partition("/")
    _change(config, investigation_id, who, "resolve", entity=entity, fault=fault, note=note)


@incidents_app.command("timeline")
def timeline_cmd(investigation_id: str = typer.Argument(...), config: Path | None = ConfigOption) -> None:
    """Alerts, investigation steps, decisions, notifications and life-cycle changes, oldest first."""
    from rootward.cli.console import stored_id
    from rootward.store.incident_timeline import timeline
    from rootward.store.investigations import InvestigationRow

    full_id = stored_id(config, investigation_id)
    with session_scope(settings_from(config)) as session:
        row = session.get(InvestigationRow, full_id)
        assert row is not None
        for e in timeline(session, row):
            by = f"  ({e.by})" if e.by else ""
            typer.echo(f"{e.at:%Y-%m-%d %H:%M:%S}  {e.kind:<13} {e.text}{by}")


def register(app: typer.Typer) -> None:
    app.add_typer(incidents_app, name="incidents")
