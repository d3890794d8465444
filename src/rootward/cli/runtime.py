"""`rootward worker` and `rootward investigations list|show`."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Annotated, Any

import typer

from rootward.cli.database import session_scope, settings_from

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="rootward.yaml (default: $ROOTWARD_CONFIG, ./rootward.yaml)"),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]

STATUSES = ("queued", "running", "done", "failed", "expired")


def worker(
    config: ConfigOption = None,
    concurrency: Annotated[
        int | None,
        typer.Option("--concurrency", "-n", min=1, help="Jobs run at once (default runtime.workers, at least 1)."),
    ] = None,
    metrics_port: Annotated[
        int,
        typer.Option("--metrics-port", min=0, help="Serve this worker's tool-call metrics on server.host:PORT."),
    ] = 0,
) -> None:
    """Run investigation workers only (no API) until SIGTERM; several may share one PostgreSQL."""
    from rootward.observability.exposition import serve_process_metrics
    from rootward.observability.tracing import configure_tracing
    from rootward.runtime.worker import run_worker_process

    settings = settings_from(config)
    configure_tracing(settings.tracing)
    if metrics_port:
        serve_process_metrics(settings.server.host, metrics_port)
    logging.basicConfig(
        level=getattr(logging, settings.server.log_level.upper()),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("alembic").setLevel(logging.WARNING)
    raise typer.Exit(run_worker_process(settings, concurrency=concurrency))


investigations = typer.Typer(help="Investigation jobs: queued, running, done, failed, expired.", no_args_is_help=True)


@investigations.command("list")
def list_investigations(
    config: ConfigOption = None,
    status: Annotated[
        str | None, typer.Option("--status", "-s", help=f"Only this status: {', '.join(STATUSES)}.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Newest N jobs.")] = 50,
    as_json: JsonOption = False,
) -> None:
    """List investigation jobs, newest first, expired and failed ones included."""
    from rootward.runtime.reports import list_jobs, status_counts

    if status is not None and status not in STATUSES:
        typer.echo(f"--status must be one of {', '.join(STATUSES)}, not {status!r}", err=True)
        raise typer.Exit(2)
    with session_scope(settings_from(config)) as session:
        jobs = list_jobs(session, status=status, limit=limit)
        counts = status_counts(session)
    if as_json:
        typer.echo(json.dumps({"counts": counts, "jobs": [job.as_dict() for job in jobs]}, indent=2))
        return
    if not jobs:
        typer.echo("no investigations" + (f" with status {status}" if status else ""))
        return
    rows = [
        [
            j.id,
            j.status,
            f"P{j.priority}",
            j.tier,
            j.service or "-",
            j.group_id,
            f"{j.steps_done}",
            str(j.attempts),
            j.enqueued_at[:19],
            (j.error or "")[:60],
        ]
        for j in jobs
    ]
    _table(["ID", "STATUS", "PRIO", "TIER", "SERVICE", "GROUP", "STEPS", "TRIES", "ENQUEUED (UTC)", "ERROR"], rows)
    typer.echo("\n" + "  ".join(f"{name}: {counts.get(name, 0)}" for name in STATUSES))


@investigations.command("show")
def show_investigation(
    job_id: Annotated[str, typer.Argument(help="Job id (or a unique prefix of 6+ characters).")],
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """One investigation: status, lease, error and every step with its checkpoint time."""
    from rootward.runtime.pipeline import DEFAULT_STEP_NAMES
    from rootward.runtime.reports import find_job, job_report

    settings = settings_from(config)
    names: tuple[str, ...]
    if settings.runtime.pipeline == "placeholder":
        names = DEFAULT_STEP_NAMES
    else:
        from rootward.runtime.investigation_steps import step_names

        names = step_names()
    with session_scope(settings) as session:
        job = find_job(session, job_id)
        if job is None:
            typer.echo(f"no investigation {job_id!r}", err=True)
            raise typer.Exit(1)
        report = job_report(session, job, names)
    if as_json:
        typer.echo(json.dumps(report.as_dict(), indent=2))
        return
    j = report.job
    fields: list[tuple[str, Any]] = [
        ("id", j.id),
        ("service", j.service or "-"),
        ("group", j.group_id),
        ("status", j.status),
        ("priority", f"P{j.priority}"),
        ("tier", j.tier),
        ("enqueued", j.enqueued_at),
        ("started", j.started_at or "-"),
        ("finished", j.finished_at or "-"),
        ("attempts", j.attempts),
        ("lease", f"{j.lease_owner} until {report.lease_expires_at}" if j.lease_owner else "-"),
        ("error", j.error or "-"),
    ]
    for name, value in fields:
        typer.echo(f"{name + ':':10} {value}")
    typer.echo("")
    _table(
        ["#", "STEP", "STATUS", "CHECKPOINTED (UTC)", "MS", "WORKER", "TRY"],
        [
            [
                str(s.index),
                s.name,
                s.status,
                s.checkpointed_at or "-",
                "" if s.duration_ms is None else str(s.duration_ms),
                s.worker_id or "",
                "" if s.attempt is None else str(s.attempt),
            ]
            for s in report.steps
        ],
    )


def _table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        typer.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def register(app: typer.Typer) -> None:
    """Add `worker` and `investigations` to the root app."""
    app.command("worker")(worker)
    app.add_typer(investigations, name="investigations")
