"""`rootward mcp`: the MCP server over stdio (for a local assistant) or streamable HTTP."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from rootward.cli.database import settings_from

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from rootward.mcp.access import TokenAccess
    from rootward.mcp.server import McpDeps
    from rootward.settings import Settings

TOKEN_ENV = "ROOTWARD_TOKEN"


def mcp_command(
    transport: Annotated[
        str, typer.Option("--transport", "-t", help="stdio (a local assistant starts it) or http (streamable HTTP)")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP bind address")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port")] = 8765,
    path: Annotated[str, typer.Option(help="HTTP endpoint path")] = "/mcp",
    bundle_dir: Annotated[
        list[Path] | None,
        typer.Option("--bundle-dir", help="Directories investigate_bundle may read bundles from (repeatable)"),
    ] = None,
    config: Annotated[Path | None, typer.Option("--config", "-c", help="rootward.yaml")] = None,
) -> None:
    """Serve rootward's incidents to MCP clients (Claude, Cursor, IDEs); every tool is read-only and role-checked.

    stdio takes the caller's API token from $ROOTWARD_TOKEN; HTTP takes one per request
    (`Authorization: Bearer <token>`, from `rootward tokens create USER`).
    """
    from rootward.mcp.access import TokenAccess
    from rootward.mcp.server import build_server
    from rootward.mcp.transports import serve_http, serve_stdio
    from rootward.store.db import make_engine, make_session_factory
    from rootward.store.users import list_users

    mode: Literal["stdio", "http"]
    if transport not in ("stdio", "http"):
        typer.echo(f"error: --transport must be stdio or http, not {transport!r}", err=True)
        raise typer.Exit(2)
    mode = "stdio" if transport == "stdio" else "http"
    settings = settings_from(config)
    # stdout is the protocol over stdio: every log line goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=settings.server.log_level.upper())
    sessions = make_session_factory(make_engine(settings.database_url))
    with sessions() as session:  # an unmigrated or unreachable database is reported here, by the root command
        list_users(session)
    token = os.environ.get(TOKEN_ENV) if mode == "stdio" else None
    access = TokenAccess(sessions, token=token)
    if mode == "stdio" and access.user_of(token) is None:
        reason = "is not a live API token" if token else "is not set"
        typer.echo(f"error: ${TOKEN_ENV} {reason}: create one with `rootward tokens create USER`", err=True)
        raise typer.Exit(2)
    server = build_server(_deps(settings, sessions, access, bundle_dir or []))
    if mode == "stdio":
        serve_stdio(server)
    else:
        typer.echo(f"rootward mcp on http://{host}:{port}{path}", err=True)
        serve_http(server, access, host=host, port=port, path=path, log_level=settings.server.log_level)


def _deps(settings: Settings, sessions: sessionmaker[Session], access: TokenAccess, bundle_dirs: list[Path]) -> McpDeps:
    from rootward.engine.dependencies import EngineDeps
    from rootward.engine.entry_point import investigate_bundle
    from rootward.engine.llm_reasoner import build_reasoner
    from rootward.mcp.server import McpDeps
    from rootward.mcp.source_checks import sources_report

    engine_deps = EngineDeps(
        reasoner=build_reasoner(settings.llm), worldmodel=settings.worldmodel, limits=settings.engine.budget_limits()
    )
    return McpDeps(
        sessions=sessions,
        access=access,
        investigate=lambda bundle: investigate_bundle(bundle, engine_deps),
        check_sources=lambda services: sources_report(settings.connector_sections(), services),
        bundle_roots=tuple(bundle_dirs) + tuple(settings.replay.dirs),
        console_url=settings.notify.console_url,
        llm=settings.llm,
    )


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp_command)
