"""The `rootward` command line.

Each concern registers its own verbs from its own module (`cli/<concern>.py`,
each with a `register(app)` function), so no file here grows into a god module.
The root command (`cli/database_errors.py`) turns an un-migrated or unreachable
database into one line and exit 2 for every verb, so no verb handles it itself.
"""

from __future__ import annotations

import importlib

import typer
from typer.core import TyperOption

from rootward.cli.database_errors import RootwardGroup

_option_type = TyperOption.display_type_rich


def _flag_without_type(self: TyperOption, ctx: typer.Context) -> str | None:
    """A flag takes no value: `--json` beside `<bool>` reads as if it wanted one (typer 0.29 shows it)."""
    return None if self.is_flag else _option_type(self, ctx)


TyperOption.display_type_rich = _flag_without_type  # type: ignore[method-assign, assignment]

app = typer.Typer(
    cls=RootwardGroup,
    name="rootward",
    help="Self-hosted AI incident investigator for on-call teams.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# One line per concern; order is the order of `rootward --help`.
COMMAND_MODULES = (
    "serve",  # serve, db, config, audit, alerts (foundation)
    "runtime",  # worker, investigations list|show (runtime)
    "investigate",  # investigate, show, ask, context (engine)
    "logs",  # logs cluster (context)
    "sim",  # sim generate|stream|vary, demo (simulator)
    "evaluate",  # eval (evaluation harness)
    "kb",  # kb ingest|list|search|eval (knowledge)
    "graph",  # graph seed|show|deps|blast-radius|backtest (world model)
    "risk",  # risk report (predictive risk from metric trends)
    "actions",  # executor, approvals, users, tokens (action ladder)
    "console",  # import (record bundle investigations for the console)
    "incidents",  # incidents list|ack|assign|resolve|timeline (life cycle)
    "costs",  # costs --by service|model|provider (LLM spend)
    "mcp_server",  # mcp (the MCP server for assistants)
    "sources",  # sources check (live connectors)
    "prompts",  # prompts trials|start|evaluate|promote|revert, judge (the learning loop)
)


@app.callback()
def _root() -> None:
    """Self-hosted AI incident investigator for on-call teams."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"rootward.cli.{_name}").register(app)


def main() -> None:
    app()
