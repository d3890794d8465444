"""`rootward investigate` and `rootward context`: the engine over an incident bundle, in-process."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from rootward.bundle.format import BundleError


def _install_configured_reasoner() -> None:
    """LLM mode when a config file or ROOTWARD_LLM__* variables configure a provider; else rule mode."""
    import os

    configured = os.environ.get("ROOTWARD_CONFIG") or Path("rootward.yaml").is_file()
    if not configured and not any(k.startswith("ROOTWARD_LLM__") for k in os.environ):
        return
    from rootward.cli.serve import settings_or_exit
    from rootward.engine.llm_reasoner import install_reasoner

    install_reasoner(settings_or_exit(None).llm)


def investigate_command(
    bundle: Path = typer.Argument(..., help="Bundle directory or .tar.gz"),
    as_json: bool = typer.Option(False, "--json", help="Print the result JSON of the bundle spec"),
) -> None:
    """Investigate one incident bundle and print the RCA (Markdown, or the spec's JSON)."""
    from rootward.engine.investigate import investigate_bundle
    from rootward.engine.rca import render_markdown

    _install_configured_reasoner()
    try:
        result = investigate_bundle(bundle)
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
    ctx = assemble_context(bundle_sources(loaded), loaded.meta, hops=hops, retrieve_knowledge=retrieve_knowledge)
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
