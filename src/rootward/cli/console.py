"""`rootward import`: investigate bundles and record them for the console."""

from __future__ import annotations

from pathlib import Path

import typer

from rootward.sources.bundle import BundleError

ConfigOption = typer.Option(None, "--config", "-c", help="rootward.yaml (default: $ROOTWARD_CONFIG)")


def import_command(
    bundles: list[Path] = typer.Argument(..., help="Bundle directories or .tar.gz files"),
    config: Path | None = ConfigOption,
) -> None:
    """Investigate bundles and record the results, so they appear in the console and `rootward show`."""
    from rootward.cli.serve import settings_or_exit
    from rootward.engine.record import record_bundle
    from rootward.store.db import make_engine, make_session_factory
    from rootward.store.migrate import upgrade

    settings = settings_or_exit(config)
    upgrade(settings.database_url)
    sessions = make_session_factory(make_engine(settings.database_url))
    failed = 0
    for number, path in enumerate(bundles, start=1):
        try:
            with sessions() as session, session.begin():
                row = record_bundle(session, path)
        except BundleError as exc:
            failed += 1
            typer.echo(f"[{number}/{len(bundles)}] {path}: error: {exc}", err=True)
            continue
        top = f"{row.top_entity} {row.top_fault}" if row.top_entity else "no hypothesis"
        typer.echo(f"[{number}/{len(bundles)}] {row.id} {row.bundle}: {row.status}, {top}")
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("import")(import_command)
