"""`rootward investigate`: run the pipeline in-process over an incident bundle."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from rootward.engine.investigate import investigate_bundle
from rootward.sources.bundle import BundleError


def investigate_command(
    bundle: Path = typer.Argument(..., help="Bundle directory or .tar.gz"),
    as_json: bool = typer.Option(False, "--json", help="Print the result JSON of the bundle spec"),
) -> None:
    """Investigate one incident bundle and print the RCA."""
    try:
        result = investigate_bundle(bundle)
    except BundleError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=1) + "\n")
    else:
        typer.echo(f"{result.bundle}: {result.status}")
        for gap in result.gaps:
            typer.echo(f"  gap: {gap}")


def register(app: typer.Typer) -> None:
    app.command("investigate")(investigate_command)
