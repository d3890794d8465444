"""`rootward investigate` and `rootward context`: the engine over an incident bundle, in-process."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

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
    bundle: Path = typer.Argument(None, help="Bundle directory or .tar.gz"),
    as_json: bool = typer.Option(False, "--json", help="Print the result JSON of the bundle spec"),
    rerun: str = typer.Option(
        None, "--rerun", help="Re-investigate stored investigation ID on fresh live data (queued for the workers)"
    ),
    config: Path = typer.Option(None, "--config", help="rootward.yaml (with --rerun: the database to use)"),
) -> None:
    """Investigate one incident bundle and print the RCA (Markdown, or the spec's JSON).

    With --rerun ID, queue a new investigation of that incident's alert group instead: a fresh
    snapshot of the live sources, a new investigation linked to the old one by its group.
    """
    from rootward.bundle.format import BundleError
    from rootward.engine.entry_point import investigate_bundle
    from rootward.engine.rca import render_markdown

    if rerun is not None:
        _rerun(rerun, config)
        return
    if bundle is None:
        typer.echo("error: give a BUNDLE, or --rerun ID", err=True)
        raise typer.Exit(2)

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
    from rootward.bundle.format import BundleError
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


def _rerun(investigation_id: str, config: Path | None) -> None:
    import getpass

    from rootward.cli.serve import settings_or_exit
    from rootward.runtime.rerun import CannotRerun, rerun_investigation
    from rootward.store.db import make_engine, make_session_factory

    settings = settings_or_exit(config)
    engine = make_engine(settings.database_url)
    try:
        job_id = rerun_investigation(make_session_factory(engine), investigation_id, by=f"cli:{getpass.getuser()}")
    except CannotRerun as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    finally:
        engine.dispose()
    typer.echo(f"queued re-investigation {job_id} of {investigation_id}; `rootward serve` or `rootward worker` runs it")


def register(app: typer.Typer) -> None:
    app.command("investigate")(investigate_command)
    app.command("context")(context_command)
