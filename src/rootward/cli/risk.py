"""`rootward risk report`: which entities will cross a threshold soon, from the metrics' trends.

Reads the configured Prometheus (or `--prometheus URL`), ranks with the stored
world model when the database has a graph, prints the report, and with
`--post` keeps it (for `/api/v1/risk` and the console) and queues the chat
digest, as the daily run in `serve` does.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from rootward.cli.database import settings_from

risk_app = typer.Typer(help="Predictive risk: trends that will cross a threshold before anyone is alerted.")

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="rootward.yaml (default: $ROOTWARD_CONFIG, ./rootward.yaml)"),
]


def _querier(settings: Any, url: str | None) -> Any:
    from rootward.runtime.risk_report import prometheus_querier

    if url:
        from rootward.sources.prometheus import PrometheusSettings, PrometheusSource

        return PrometheusSource(PrometheusSettings(base_url=url))
    querier = prometheus_querier(settings.connector_sections())
    if querier is None:
        typer.echo("no metrics source that answers range queries: configure prometheus or pass --prometheus", err=True)
        raise typer.Exit(2)
    return querier


def _render(report: dict[str, Any], top: int) -> list[str]:
    lines = [
        f"risk report {report['generated_at']}: {len(report['entries'])} entries from {report['series_read']} series"
    ]
    for n, entry in enumerate(report["entries"][:top], start=1):
        reach = ", ".join(b["entity"] for b in entry["blast_radius"][:5]) or "-"
        lines.append(f"{n:>3}. [{entry['score']:.3f}] {entry['kind']:<18} {entry['summary']}")
        lines.append(f"       crosses at {entry['crosses_at']}; blast radius: {reach}")
        for cite in entry["series"]:
            lines.append(f"       series {cite}")
    lines += [f"gap: {gap}" for gap in report["gaps"]]
    return lines


@risk_app.command("report")
def report_cmd(
    config: ConfigOption = None,
    prometheus: Annotated[
        str | None, typer.Option("--prometheus", help="Prometheus base URL (overrides config).")
    ] = None,
    top: Annotated[
        int | None, typer.Option("--top", min=1, help="Entries to print (default: worldmodel.risk.top).")
    ] = None,
    post: Annotated[bool, typer.Option("--post", help="Keep the report and queue the chat digest.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Rank entities by how soon a trend crosses its threshold (disk, inodes, memory, burn rate, certificates...)."""
    from rootward.runtime.risk_report import make_report, store_and_post
    from rootward.store.db import make_engine, make_session_factory
    from rootward.store.migrate import upgrade

    settings = settings_from(config)
    risk = settings.worldmodel.risk
    querier = _querier(settings, prometheus)
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    sessions = make_session_factory(engine)
    try:
        report = make_report(querier, risk, sessions, datetime.now(UTC))
        channels = store_and_post(sessions, report, risk, settings.notify) if post else []
    finally:
        engine.dispose()
    data = report.to_json()
    if as_json:
        typer.echo(json.dumps(data, indent=2))
    else:
        for line in _render(data, top or risk.top):
            typer.echo(line)
    if post:
        typer.echo(f"kept; digest queued for {', '.join(channels) or 'no channel'}", err=as_json)


def register(app: typer.Typer) -> None:
    app.add_typer(risk_app, name="risk")
