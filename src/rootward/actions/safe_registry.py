"""Every L2 safe action kind, registered once: its name and how its handler is built.

A kind whose handler cannot be built here (no Alertmanager configured for
`silence_alert`) is refused by the runner as "not configured here"; a kind
off `actions.safe_allowlist` is refused as not allowlisted. `run_safe_actions`
runs a plan's safe actions and audits each outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rootward.actions.safe import SafeAction, SafeActionHandler, SafeActionRunner
from rootward.actions.safe_handlers import (
    SafeActionContext,
    audit_note,
    query_km,
    retry_task,
    route_to_km,
    silence_alert,
)
from rootward.store.audit import append_audit

HandlerBuilder = Callable[[SafeActionContext], SafeActionHandler | None]

SAFE_ACTION_HANDLERS: dict[str, HandlerBuilder] = {
    "retry_task": retry_task,
    "silence_alert": silence_alert,
    "flag_for_human_review": audit_note("flag_for_human_review"),
    "route_to_km": route_to_km,
    "query_km": query_km,
    "annotate": audit_note("annotate"),
}


def safe_action_runner(ctx: SafeActionContext) -> SafeActionRunner:
    """A runner with every registered handler that can be built, the allowlist and the quota."""
    handlers = {name: handler for name, build in SAFE_ACTION_HANDLERS.items() if (handler := build(ctx)) is not None}
    return SafeActionRunner(
        handlers, allowlist=set(ctx.settings.safe_allowlist), max_per_investigation=ctx.settings.safe_quota
    )


def run_safe_actions(actions: Sequence[SafeAction], ctx: SafeActionContext) -> list[str]:
    """Run them in order; each outcome is audited (`safe_action.result`) and described for the notification."""
    if not actions:
        return []  # no runner (and no backend client) for an investigation that takes none
    done: list[str] = []
    for outcome in safe_action_runner(ctx).run(list(actions)):
        done.append(outcome.describe())
        with ctx.sessions() as session, session.begin():
            append_audit(
                session,
                "safe_action.result",
                ctx.investigation_id,
                {"action": outcome.action.name, "status": outcome.status, "detail": outcome.detail},
            )
    return done
