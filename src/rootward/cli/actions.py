"""Verbs of the action ladder: `executor`, `approvals`, `users`, `tokens`."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from rootward.domain.roles import Role

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from rootward.actions.backends import Backend
    from rootward.settings import Settings

ConfigOption = typer.Option(None, "--config", "-c", help="rootward.yaml (default: $ROOTWARD_CONFIG)")

approvals_app = typer.Typer(help="Remediation approval requests.", no_args_is_help=True)
users_app = typer.Typer(help="Users and their roles.", no_args_is_help=True)
tokens_app = typer.Typer(help="API tokens (for the console, the API and chat approvals).", no_args_is_help=True)


def _settings(config: Path | None) -> Settings:
    from rootward.cli.serve import settings_or_exit

    return settings_or_exit(config)


def _sessions(settings: Settings) -> sessionmaker[Session]:
    from rootward.store.db import make_engine, make_session_factory
    from rootward.store.migrate import upgrade

    upgrade(settings.database_url)
    return make_session_factory(make_engine(settings.database_url))


def build_backends(settings: Settings) -> dict[str, Backend]:
    backends: dict[str, Backend] = {}
    ex = settings.actions.executor
    if ex.kubernetes is not None:
        from rootward.actions.kubernetes_exec import KubernetesBackend

        k8s = KubernetesBackend(ex.kubernetes)
        backends.update({verb: k8s for verb in k8s.verbs})
    if ex.awx is not None:
        from rootward.actions.awx import AwxBackend

        awx = AwxBackend(ex.awx)
        backends.update({verb: awx for verb in awx.verbs})
    return backends


def executor_command(
    config: Path | None = ConfigOption,
    once: bool = typer.Option(False, "--once", help="Run what is approved now, then exit"),
) -> None:
    """Run approved remediation (a separate process with its own config and credentials)."""
    from rootward.actions.executor import Executor
    from rootward.store.worldmodel import DbPredictionLedger

    settings = _settings(config)
    sessions = _sessions(settings)
    backends = build_backends(settings)
    allow = set(settings.actions.executor.allowlist)
    typer.echo(f"executor: verbs allowed {sorted(allow) or 'none'}; backends for {sorted(backends) or 'none'}")
    executor = Executor(sessions, DbPredictionLedger, backends, allowlist=allow, worldmodel=settings.worldmodel)
    if once:
        for approval_id, status in executor.run_once():
            typer.echo(f"{approval_id}: {status}")
        for verdict in executor.verify_due():
            typer.echo(f"{verdict.approval_id}: verdict {verdict.outcome}")
        return
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    executor.run(stop, settings.actions.executor.poll_s)


@approvals_app.command("list")
def approvals_list(
    config: Path | None = ConfigOption,
    status: str | None = typer.Option(None, help="pending, approved, executed, refused, ..."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List approval requests, newest first."""
    from sqlalchemy import select

    from rootward.store.approvals import ApprovalRow

    settings = _settings(config)
    sessions = _sessions(settings)
    with sessions() as s:
        query = select(ApprovalRow).order_by(ApprovalRow.requested_at.desc()).limit(100)
        if status:
            query = query.where(ApprovalRow.status == status)
        rows = s.scalars(query).all()
    from rootward.domain.proposal_state import proposal_states
    from rootward.store.approvals import approval_facts

    states = proposal_states([], [approval_facts(r) for r in rows], settings.actions.executor.runnable_verbs())
    if as_json:
        typer.echo(json.dumps([{"id": r.id, **st.to_json()} for r, st in zip(rows, states, strict=True)]))
        return
    for r, st in zip(rows, states, strict=True):
        note = f"; {st.executor_note}" if st.executor_note else ""
        typer.echo(f"{r.id}  {r.status:<9} {st.text}  ({st.words}{note})")


def _decide(config: Path | None, approval_id: str, user: str, decision: str) -> None:
    from rootward.actions.approvals import decide
    from rootward.store.users import list_users

    sessions = _sessions(_settings(config))
    with sessions() as s, s.begin():
        found = next((u for u in list_users(s) if u.name == user), None)
        outcome = decide(s, approval_id, found, "approve" if decision == "approve" else "reject", via="cli")
    if not outcome.ok:
        typer.echo(f"refused: {outcome.reason}", err=True)
        raise typer.Exit(1)
    typer.echo(f"{approval_id}: {outcome.status}")


@approvals_app.command("approve")
def approvals_approve(
    approval_id: str,
    user: str = typer.Option(..., "--as", help="Approver's user name"),
    config: Path | None = ConfigOption,
) -> None:
    """Approve a pending request (needs the approver role)."""
    _decide(config, approval_id, user, "approve")


@approvals_app.command("reject")
def approvals_reject(
    approval_id: str,
    user: str = typer.Option(..., "--as", help="Approver's user name"),
    config: Path | None = ConfigOption,
) -> None:
    """Reject a pending request."""
    _decide(config, approval_id, user, "reject")


@users_app.command("add")
def users_add(
    name: str,
    role: Role = typer.Option(Role.VIEWER, help="viewer, responder, approver or admin"),
    slack: str | None = typer.Option(None, help="Slack user id, for approvals from Slack"),
    matrix: str | None = typer.Option(None, help="Matrix user id, for approvals from Matrix"),
    config: Path | None = ConfigOption,
) -> None:
    """Add a user."""
    from rootward.store.users import add_user

    sessions = _sessions(_settings(config))
    try:
        with sessions() as s, s.begin():
            user = add_user(s, name, role, slack_user_id=slack, matrix_user_id=matrix)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"added {user.name} ({user.role.value})")


@users_app.command("list")
def users_list(config: Path | None = ConfigOption) -> None:
    """List users, roles and whether each is disabled."""
    from rootward.store.users import list_user_states

    with _sessions(_settings(config))() as s:
        for listed in list_user_states(s):
            user = listed.user
            state = f" disabled {listed.disabled_at:%Y-%m-%d %H:%M}" if listed.disabled_at else ""
            typer.echo(
                f"{user.name:<20} {user.role.value:<10} slack={user.slack_user_id or '-'} "
                f"matrix={user.matrix_user_id or '-'}{state}"
            )


def _change_user(config: Path | None, change: Callable[[Session], str]) -> None:
    """Run one user or token change in a transaction; a ValueError (no such user...) exits 2 with its message."""
    sessions = _sessions(_settings(config))
    try:
        with sessions() as s, s.begin():
            message = change(s)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(message)


@users_app.command("disable")
def users_disable(name: str, config: Path | None = ConfigOption) -> None:
    """Refuse the user at once: their tokens, console sessions and chat approvals stop working."""
    from rootward.store.users import disable_user

    _change_user(config, lambda s: f"disabled {disable_user(s, name).name}")


@users_app.command("enable")
def users_enable(name: str, config: Path | None = ConfigOption) -> None:
    """Let a disabled user in again (tokens that were not revoked work again)."""
    from rootward.store.users import enable_user

    _change_user(config, lambda s: f"enabled {enable_user(s, name).name}")


@users_app.command("remove")
def users_remove(name: str, config: Path | None = ConfigOption) -> None:
    """Delete the user with their tokens and sessions (past decisions keep their name)."""
    from rootward.store.users import remove_user

    _change_user(config, lambda s: f"removed {remove_user(s, name).name}")


@tokens_app.command("create")
def tokens_create(
    user: str, label: str = typer.Option("", help="What the token is for"), config: Path | None = ConfigOption
) -> None:
    """Create an API token for a user; it is printed once and stored only as a hash."""
    from rootward.store.users import create_token

    sessions = _sessions(_settings(config))
    try:
        with sessions() as s, s.begin():
            token = create_token(s, user, label)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(token)


@tokens_app.command("list")
def tokens_list(
    user: str | None = typer.Option(None, "--user", help="Only this user's tokens"),
    config: Path | None = ConfigOption,
) -> None:
    """List tokens by id (the start of their hash; the tokens themselves are never stored)."""
    from rootward.store.users import list_tokens

    with _sessions(_settings(config))() as s:
        for token in list_tokens(s, user):
            state = f"revoked {token.revoked_at:%Y-%m-%d %H:%M}" if token.revoked_at else "active"
            typer.echo(
                f"{token.id}  {token.user:<20} {state:<24} created {token.created_at:%Y-%m-%d %H:%M}  {token.label}"
            )


@tokens_app.command("revoke")
def tokens_revoke(
    token_id: str = typer.Argument(..., help="Token id from `tokens list` (8+ characters), or the token itself"),
    config: Path | None = ConfigOption,
) -> None:
    """Revoke a token at once: API calls and console sessions made with it are refused from now on."""
    from rootward.store.users import revoke_token

    def revoke(s: Session) -> str:
        token = revoke_token(s, token_id)
        return f"revoked {token.id} of {token.user}"

    _change_user(config, revoke)


def register(app: typer.Typer) -> None:
    app.command("executor")(executor_command)
    app.add_typer(approvals_app, name="approvals")
    app.add_typer(users_app, name="users")
    app.add_typer(tokens_app, name="tokens")
