"""Foundation verbs: `serve`, `db upgrade`, `config show|schema`, `audit verify`, `alerts list`."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from rootward.settings import Settings

log = logging.getLogger("rootward.serve")

ConfigOption = typer.Option(
    None, "--config", "-c", help="rootward.yaml (default: $ROOTWARD_CONFIG, then ./rootward.yaml)"
)


def settings_or_exit(config: Path | None, **overrides: Any) -> Settings:
    """Load the configuration; on error print every bad key path with its reason and exit 2."""
    from rootward.settings import ConfigError, load_settings

    try:
        return load_settings(config, **overrides)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def _upgrade_or_exit(settings: Settings) -> None:
    from sqlalchemy.exc import DBAPIError

    from rootward.store.migrate import upgrade

    try:
        upgrade(settings.database_url)
    except DBAPIError:
        raise  # unreachable database: one line from the root command (cli/database_errors.py)
    except Exception as exc:
        typer.echo(f"error: cannot migrate the database: {type(exc).__name__}: {exc}", err=True)
        raise typer.Exit(1) from None


def _start_workers(settings: Settings, sessions: Any) -> Any:
    """The runtime's in-process worker pool, or None when `runtime.workers` is 0."""
    if settings.runtime.workers == 0:
        return None
    from rootward.runtime.worker import WorkerPool

    pool = WorkerPool(settings, sessions)
    pool.start()
    return pool


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _start_background(settings: Settings, sessions: Any, stop: threading.Event) -> list[threading.Thread]:
    """Outbox delivery, Matrix approvals and thread Q&A, approval expiry, the risk report and prompt-trial
    evaluation, beside the API."""
    from rootward.actions.approvals import expire_due
    from rootward.notify.dispatch import start_background

    def expire_approvals(stop: threading.Event) -> None:
        while not stop.wait(30):
            with sessions() as session, session.begin():
                expire_due(session)

    from rootward.runtime.trial_schedule import trial_loop

    loops: list[Callable[[threading.Event], None]] = [expire_approvals]
    risk = _risk_loop(settings, sessions)
    if risk is not None:
        loops.append(risk)
    trials = trial_loop(settings.judge, sessions)  # prompt trials decided on schedule
    if trials is not None:
        loops.append(trials)
    if settings.notify.matrix is not None:
        from rootward.actions.matrix_approvals import MatrixApprovals
        from rootward.chat.matrix_threads import MatrixThreads

        loops.append(MatrixApprovals(settings.notify.matrix, sessions).run)
        loops.append(MatrixThreads(settings.notify.matrix, sessions, llm=settings.llm).run)  # thread Q&A
    socket_mode = _slack_socket_mode(settings, sessions)
    if socket_mode is not None:
        loops.append(socket_mode)
    return start_background(settings.notify, sessions, stop, extra=loops)


def _slack_socket_mode(settings: Settings, sessions: Any) -> Any:
    """Slack thread Q&A over Socket Mode, when `chat.slack.socket_mode` is on (no public URL needed)."""
    chat, slack = settings.chat.slack, settings.notify.slack
    if chat is None or not chat.socket_mode or chat.app_token is None or slack is None:
        return None
    from rootward.chat.slack_socket import SlackSocketMode

    log.info("Slack Socket Mode: on (events come over a websocket; /api/v1/slack/events is not needed)")
    listener = SlackSocketMode(
        chat.app_token.get_secret_value(),
        sessions,
        api_url=slack.api_url,
        timeout_s=slack.timeout_s,
        reconnect_s=chat.reconnect_s,
        llm=settings.llm,
    )
    return listener.run


def _risk_loop(settings: Settings, sessions: Any) -> Any:
    """The daily risk report, when it is enabled and a metrics source answers range queries."""
    from rootward.runtime.risk_report import prometheus_querier, risk_loop

    risk = settings.worldmodel.risk
    querier = prometheus_querier(settings.connector_sections()) if risk.enabled else None
    return None if querier is None else risk_loop(querier, risk, settings.notify, sessions)


def _start_demo(url: str, token: str | None, stop: threading.Event) -> threading.Thread:
    from rootward.sim.demo_feed import run

    thread = threading.Thread(target=run, args=(url, token, stop), name="rootward-demo-feed", daemon=True)
    thread.start()
    return thread


def console_url(settings: Settings, host: str, port: int) -> str:
    """Where message links lead: `notify.console_url` when set, else this server on the port it serves."""
    if "console_url" in settings.notify.model_fields_set:
        return settings.notify.console_url
    return f"http://{host}:{port}"


def serve_command(
    host: str = typer.Option(None, help="Bind address (default: server.host)"),
    port: int = typer.Option(None, help="Port (default: server.port)"),
    config: Path = ConfigOption,
    demo: bool = typer.Option(False, "--demo", help="Feed simulated incidents into this server"),
    workers: int = typer.Option(None, "--workers", help="In-process workers (default: runtime.workers; 0: API only)"),
) -> None:
    """Run the API and in-process workers (migrates the database first)."""
    import uvicorn

    from rootward.settings import masked_dump
    from rootward.web.app import create_app

    settings = settings_or_exit(config)
    if workers is not None:
        if workers < 0:
            typer.echo("error: --workers must be 0 or more", err=True)
            raise typer.Exit(2)
        settings.runtime.workers = workers
    host = host or settings.server.host
    port = port if port is not None else settings.server.port
    logging.basicConfig(
        level=settings.server.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    for chatty in ("alembic", "drain3", "bm25s", "httpx"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    _upgrade_or_exit(settings)
    client_host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    settings.notify.console_url = console_url(settings, client_host, port)
    if demo:
        from rootward.domain.alert import Severity, Tier
        from rootward.settings import TierRule
        from rootward.sim.demo_feed import bundle_dir

        settings.replay.dirs.append(bundle_dir())  # demo alerts are investigated against their bundles
        settings.replay.simulated_dirs.append(bundle_dir())  # ... and marked simulated
        # Simulated storms are mostly warnings; investigate them so a newcomer sees RCAs appear.
        settings.router.tiers.insert(
            0,
            TierRule(
                severity=[Severity.P2],
                event=["firing", "firing_with_context"],
                tier=Tier.L1,
                reason="demo: investigate simulated warnings",
            ),
        )
    app = create_app(settings)
    pool = _start_workers(settings, app.state.sessions)
    stop = threading.Event()
    background = _start_background(settings, app.state.sessions, stop)
    demo_thread = None
    if demo:
        demo_thread = _start_demo(f"http://{client_host}:{port}", app.state.intake_token, stop)
    typer.echo(f"rootward serving on http://{host}:{port} (database {masked_dump(settings)['database']['url']})")
    # Uvicorn re-raises SIGTERM after its own graceful shutdown; turn that into SystemExit so the
    # `finally` below still stops the workers (their jobs go back to the queue, nothing waits on a lease).
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        uvicorn.run(
            app,
            host=host,
            port=port,
            loop="uvloop",
            http="httptools",
            log_level=settings.server.log_level,
            access_log=settings.server.access_log,
        )
    finally:
        stop.set()
        if demo_thread is not None:
            demo_thread.join(timeout=5)
        for thread in background:
            thread.join(timeout=5)
        if pool is not None:
            pool.stop()


def db_upgrade_command(config: Path = ConfigOption) -> None:
    """Apply every database migration (all branches)."""
    settings = settings_or_exit(config)
    _upgrade_or_exit(settings)
    typer.echo("database is up to date")


def config_show_command(config: Path = ConfigOption) -> None:
    """Print the effective configuration (file + environment), secrets masked."""
    import yaml

    from rootward.settings import masked_dump

    settings = settings_or_exit(config)
    sys.stdout.write(yaml.safe_dump(masked_dump(settings), sort_keys=False))


def config_schema_command() -> None:
    """Print the JSON schema of the configuration file."""
    import orjson

    from rootward.settings import json_schema

    sys.stdout.write(orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2).decode() + "\n")


def audit_verify_command(config: Path = ConfigOption) -> None:
    """Recompute the audit hash chain; exit 1 at the first broken row."""
    from rootward.store.audit import verify_chain
    from rootward.store.db import make_engine, make_session_factory

    settings = settings_or_exit(config)
    engine = make_engine(settings.database_url)
    try:
        with make_session_factory(engine)() as session:
            report = verify_chain(session)
    finally:
        engine.dispose()
    if report.broken is not None:
        typer.echo(f"audit chain BROKEN at row {report.broken.row_id}: {report.broken.reason}")
        raise typer.Exit(1)
    typer.echo(f"audit chain ok: {report.rows} rows")


def alerts_list_command(
    config: Path = ConfigOption,
    limit: int = typer.Option(50, help="Newest first"),
    service: str = typer.Option(None, help="Only this service"),
    as_json: bool = typer.Option(False, "--json", help="JSON lines instead of a table"),
) -> None:
    """List stored alerts with their group, tier and dedup count."""
    import orjson

    from rootward.store.alert_queries import recent_alerts
    from rootward.store.db import make_engine, make_session_factory

    settings = settings_or_exit(config)
    engine = make_engine(settings.database_url)
    try:
        with make_session_factory(engine)() as session:
            rows = recent_alerts(session, limit=limit, service=service)
    finally:
        engine.dispose()
    if as_json:
        for row in rows:
            sys.stdout.write(orjson.dumps(row).decode() + "\n")
        return
    if not rows:
        typer.echo("no alerts")
        return
    typer.echo(f"{'LAST SEEN':<20} {'SERVICE':<18} {'ALERT':<28} {'SEV':<3} {'STATUS':<8} {'N':>5} {'TIER':<4} GROUP")
    for r in rows:
        typer.echo(
            f"{r['last_seen'][:19]:<20} {r['service'][:18]:<18} {r['name'][:28]:<28} {r['severity']:<3} "
            f"{r['status']:<8} {r['count']:>5} {r['tier']:<4} {r['group_id']}"
        )


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)
    db = typer.Typer(help="Database schema.", no_args_is_help=True)
    db.command("upgrade")(db_upgrade_command)
    app.add_typer(db, name="db")
    cfg = typer.Typer(help="Configuration.", no_args_is_help=True)
    cfg.command("show")(config_show_command)
    cfg.command("schema")(config_schema_command)
    app.add_typer(cfg, name="config")
    audit = typer.Typer(help="Audit trail.", no_args_is_help=True)
    audit.command("verify")(audit_verify_command)
    app.add_typer(audit, name="audit")
    alerts = typer.Typer(help="Stored alerts.", no_args_is_help=True)
    alerts.command("list")(alerts_list_command)
    app.add_typer(alerts, name="alerts")
