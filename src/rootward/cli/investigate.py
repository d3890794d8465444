"""`rootward investigate`: run the pipeline in-process over an incident bundle."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer

from rootward.domain.investigation import InvestigationResult, Timing
from rootward.sources.bundle import BundleError, load_bundle


def investigate_command(
    bundle: Path = typer.Argument(..., help="Bundle directory or .tar.gz"),
    as_json: bool = typer.Option(False, "--json", help="Print the result JSON of the bundle spec"),
) -> None:
    """Investigate one incident bundle and print the RCA."""
    started = time.monotonic()
    try:
        loaded = load_bundle(bundle)
    except BundleError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    result = InvestigationResult(
        bundle=loaded.id,
        status="failed",
        gaps=[*loaded.gaps(), "engine not available yet"],
        timing=Timing(total_ms=int((time.monotonic() - started) * 1000)),
    )
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=1) + "\n")
    else:
        typer.echo(f"{result.bundle}: {result.status}")
        for gap in result.gaps:
            typer.echo(f"  gap: {gap}")


def register(app: typer.Typer) -> None:
    app.command("investigate")(investigate_command)
