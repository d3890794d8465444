"""`rootward investigate` and `rootward context`: the engine over an incident bundle, in-process."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from rootward.bundle.format import BundleError

if TYPE_CHECKING:
    from rootward.engine.dependencies import EngineDeps


def _configured_deps() -> EngineDeps:
    """What the engine works with: the configured reasoner, budgets and world-model settings when a
    config file or ROOTWARD_* variables say so; else rule mode with the defaults."""
    import os

    from rootward.engine.dependencies import EngineDeps

    configured = os.environ.get("ROOTWARD_CONFIG") or Path("rootward.yaml").is_file()
    prefixes = ("ROOTWARD_LLM__", "ROOTWARD_WORLDMODEL__", "ROOTWARD_ENGINE__")
    if not configured and not any(k.startswith(prefixes) for k in os.environ):
        return EngineDeps()
    from rootward.cli.serve import settings_or_exit
    from rootward.engine.llm_reasoner import build_reasoner

    settings = settings_or_exit(None)
    return EngineDeps(
        reasoner=build_reasoner(settings.llm),
        worldmodel=settings.worldmodel,
        limits=settings.engine.budget_limits(),
    )


def investigate_command(
    bundle: Path = typer.Argument(..., help="Bundle directory or .tar.gz"),
    as_json: bool = typer.Option(False, "--json", help="Print the result JSON of the bundle spec"),
) -> None:
    """Investigate one incident bundle and print the RCA (Markdown, or the spec's JSON)."""
    from rootward.engine.entry_point import investigate_bundle
    from rootward.engine.rca import render_markdown

    deps = _configured_deps()
    try:
        result = investigate_bundle(bundle, deps)
    except BundleError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=1) + "\n")
    else:
        sys.stdout.write(render_markdown(result))


def context_command(
    bundle: Path = typer.Argument(..., help="Bundle directory or .tar.gz"),
    as_json: bool = typer.Option(False, "--json", help="Print the whole Context as JSON"),
    hops: int = typer.Option(2, help="Graph distance around the alerting services"),
) -> None:
    """Print the assembled context: exactly what the engine will reason over."""
    from rootward.bundle.load import load_bundle
    from rootward.context.assemble import assemble_context
    from rootward.engine.knowledge_context import retrieve_knowledge
    from rootward.sources.bundle import bundle_sources

    try:
        loaded = load_bundle(bundle)
    except BundleError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    ctx = assemble_context(
        bundle_sources(loaded),
        loaded.meta,
        hops=hops,
        extra_gaps=loaded.partial_gaps(),
        retrieve_knowledge=retrieve_knowledge,
    )
    if as_json:
        sys.stdout.write(ctx.model_dump_json(indent=1) + "\n")
        return
    w = ctx.window
    typer.echo(f"{ctx.bundle}: {ctx.title}")
    typer.echo(f"window {w.start:%H:%M:%S}-{w.end:%H:%M:%S} (onset {w.onset:%H:%M:%S})" if w.onset else "")
    typer.echo(f"scope ({len(ctx.topology.entities)} entities): {', '.join(ctx.topology.entities)}")
    for title, items in (
        ("alerts", [a.evidence for a in ctx.alerts]),
        ("anomalies", [a.evidence for a in ctx.anomalies]),
        ("logs", [s.evidence for s in ctx.logs if s.changed]),
        ("changes", [c.evidence for c in ctx.changes]),
        ("knowledge", [k.evidence for k in ctx.knowledge]),
    ):
        typer.echo(f"\n{title} ({len(items)}):")
        for ref in items[:20]:
            typer.echo(f"  {ref.cite}  {ref.excerpt[:140]}")
    for gap in ctx.gaps:
        typer.echo(f"gap: {gap}")


def register(app: typer.Typer) -> None:
    app.command("investigate")(investigate_command)
    app.command("context")(context_command)
