"""`rootward costs`: what the LLM calls cost, by service, model or provider."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer

from rootward.cli.database import session_scope, settings_from

UNITS = {"m": 60, "h": 3600, "d": 86400}


def parse_since(text: str) -> timedelta:
    """`30m`, `12h`, `7d` as a duration; a bad value is a usage error naming the format."""
    number, unit = text[:-1], text[-1:]
    if unit not in UNITS or not number.isdigit():
        raise typer.BadParameter(f"use a number and m, h or d (e.g. 7d), not {text!r}")
    return timedelta(seconds=int(number) * UNITS[unit])


def costs(
    by: Annotated[str, typer.Option("--by", help="Group by service, model or provider.")] = "service",
    since: Annotated[str | None, typer.Option("--since", help="Only calls in the last 30m, 12h, 7d ...")] = None,
    config: Annotated[Path | None, typer.Option("--config", "-c", help="rootward.yaml")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table.")] = False,
) -> None:
    """LLM calls, tokens and cost, most expensive first."""
    from rootward.store.llm_calls import costs_by

    if by not in ("service", "model", "provider"):
        raise typer.BadParameter("--by must be service, model or provider")
    start = datetime.now(UTC) - parse_since(since) if since else None
    with session_scope(settings_from(config)) as session:
        lines = costs_by(session, by, since=start)  # type: ignore[arg-type]
    if as_json:
        typer.echo(json.dumps([asdict(line) for line in lines], indent=2))
        return
    if not lines:
        typer.echo("no LLM calls recorded" + (f" in the last {since}" if since else ""))
        return
    typer.echo(f"{by.upper():<28} {'CALLS':>7} {'ERRORS':>7} {'IN TOKENS':>11} {'OUT TOKENS':>11} {'COST USD':>10}")
    for line in lines:
        typer.echo(
            f"{line.key[:28]:<28} {line.calls:>7} {line.errors:>7} {line.input_tokens:>11} "
            f"{line.output_tokens:>11} {line.cost_usd:>10.4f}"
        )
    typer.echo(
        f"{'total':<28} {sum(x.calls for x in lines):>7} {'':>7} {'':>11} {'':>11} "
        f"{sum(x.cost_usd for x in lines):>10.4f}"
    )


def register(app: typer.Typer) -> None:
    app.command("costs")(costs)
