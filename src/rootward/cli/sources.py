"""`rootward sources check`: what each configured source answers, and what it holds about each service."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import typer

from rootward.cli.serve import ConfigOption, settings_or_exit


def sources_check_command(
    service: list[str] = typer.Option([], "--service", "-s", help="Service to check (repeatable); default: all seen"),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per line"),
    config: Path = ConfigOption,
) -> None:
    """Reachable, credentials, latency; per service which templates, log streams and trace services match.

    Exit 1 when a line failed, so a deploy pipeline can gate on it.
    """
    from dataclasses import asdict

    from rootward.sources.check import check_sources, render_lines

    settings = settings_or_exit(config)
    sections = settings.connector_sections()
    if not sections:
        typer.echo("no source configured: add a prometheus:, loki:, kubernetes:, jaeger: or tempo: section")
        raise typer.Exit(1)
    lines = check_sources(sections, service)
    if as_json:
        for line in lines:
            sys.stdout.write(orjson.dumps(asdict(line)).decode() + "\n")
    else:
        typer.echo(render_lines(lines))
    if any(line.verdict == "fail" for line in lines):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    sources = typer.Typer(help="Data sources.", no_args_is_help=True)
    sources.command("check")(sources_check_command)
    app.add_typer(sources, name="sources")
