"""Mechanical verification of an executed action, once its prediction window has passed.

The inputs are only data the system recorded itself: the prediction committed
at gate time (stored on the approval row), the execution time the executor
wrote, and the alerts the intake stored. `worldmodel.verdict.judge` turns them
into `match`, `partial` or `deviation`. The verdict is written once
(compare-and-set on the approval row) onto the approval and, when the engine
stored the proposal, onto the world model's proposal row, where it feeds the
class's earned-autonomy history. There is no parameter through which an LLM
or a person could supply a verdict.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from rootward.actions.autonomy_gate import action_class_for
from rootward.store.alerts import AlertRow, utc
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import append_audit
from rootward.store.worldmodel import DbVerdictHistory, WmProposalRow
from rootward.worldmodel.autonomy import record_verdict
from rootward.worldmodel.history import ObservedAlert
from rootward.worldmodel.predict import Prediction
from rootward.worldmodel.settings import WorldModelSettings
from rootward.worldmodel.verdict import Verdict, judge

EntityOf = Callable[[AlertRow], str]


def entity_of_alert(alert: AlertRow) -> str:
    """The graph entity an alert belongs to: its service (the intake's grouping key)."""
    return alert.service or str((alert.labels or {}).get("service", ""))


@dataclass(frozen=True)
class VerificationOutcome:
    approval_id: str
    outcome: str  # match | partial | deviation | unverifiable
    action_class: str = ""
    autonomy_allowed: bool | None = None


def observed_alerts(
    session: Session, start: datetime, end: datetime, *, entity_of: EntityOf = entity_of_alert
) -> list[ObservedAlert]:
    """Alerts that started in [start, end], as the verdict logic sees them."""
    # A day of slack in SQL (SQLite compares naive text); the exact window is applied in Python.
    rows = session.scalars(
        select(AlertRow)
        .where(AlertRow.starts_at >= start - timedelta(days=1), AlertRow.starts_at <= end + timedelta(days=1))
        .order_by(AlertRow.starts_at, AlertRow.id)
    )
    out = []
    for row in rows:
        at = utc(row.starts_at)
        if start <= at <= end:
            out.append(ObservedAlert(entity_of(row), row.name, at, utc(row.ends_at) if row.ends_at else None))
    return out


def _window_s(prediction: dict[str, Any]) -> int | None:
    try:
        return int(prediction["window_s"])
    except (KeyError, TypeError, ValueError):
        return None


def due_for_verification(session: Session, now: datetime) -> list[str]:
    """Executed approvals without a verdict whose prediction window has closed."""
    rows = session.scalars(
        select(ApprovalRow)
        .where(ApprovalRow.status == "executed", ApprovalRow.verdict.is_(None))
        .order_by(ApprovalRow.executed_at, ApprovalRow.id)
    ).all()
    due = []
    for row in rows:
        if row.executed_at is None or (row.result or {}).get("verification"):
            continue  # nothing to anchor the window on, or already found unverifiable
        window = _window_s(row.prediction or {})
        if window is None or utc(row.executed_at) + timedelta(seconds=window) <= now:
            due.append(row.id)
    return due


def _unverifiable(session: Session, row: ApprovalRow, reason: str) -> VerificationOutcome:
    result = dict(row.result or {})
    result["verification"] = {"status": "unverifiable", "reason": reason}
    row.result = result
    append_audit(session, "verification.unverifiable", row.id, {"reason": reason, "proposal_hash": row.proposal_hash})
    return VerificationOutcome(row.id, "unverifiable")


def verify_approval(
    session: Session,
    approval_id: str,
    settings: WorldModelSettings,
    *,
    now: datetime | None = None,
    entity_of: EntityOf = entity_of_alert,
) -> VerificationOutcome | None:
    """Judge one executed approval in the caller's transaction; None if not due or judged already."""
    at = now or datetime.now(UTC)
    row = session.get(ApprovalRow, approval_id)
    if row is None or row.status != "executed" or row.verdict is not None or row.executed_at is None:
        return None
    if (row.result or {}).get("verification"):
        return None
    executed_at = utc(row.executed_at)
    try:
        prediction = Prediction.from_json(row.prediction or {})
    except (KeyError, TypeError, ValueError) as exc:
        return _unverifiable(session, row, f"the committed prediction cannot be read: {exc.__class__.__name__} {exc}")
    window_end = executed_at + timedelta(seconds=prediction.window_s)
    if window_end > at:
        return None
    observed = observed_alerts(session, executed_at, window_end, entity_of=entity_of)
    verdict: Verdict = judge(prediction, observed, executed_at)
    detail = verdict.to_json()
    claimed = session.execute(
        update(ApprovalRow)
        .where(ApprovalRow.id == approval_id, ApprovalRow.verdict.is_(None))
        .values(verdict=verdict.outcome)
        .execution_options(synchronize_session="fetch")
    )
    if not getattr(claimed, "rowcount", 0):
        return None  # another executor judged it first
    result = dict(row.result or {})
    result["verdict"] = detail
    row.result = result
    action = json.loads(row.action_json)
    klass = action_class_for(session, row.proposal_hash, str(action.get("verb")), str(action.get("target")))
    append_audit(
        session, "approval.verdict", row.id, {"action_class": klass, "proposal_hash": row.proposal_hash, **detail}
    )
    has_proposal = session.scalars(
        select(WmProposalRow.id).where(
            WmProposalRow.proposal_hash == row.proposal_hash, WmProposalRow.verdict.is_(None)
        )
    ).first()
    allowed: bool | None = None
    if has_proposal is not None:
        try:
            decision = record_verdict(
                DbVerdictHistory(session),
                klass,
                row.proposal_hash,
                detail,
                opted_in=klass in settings.autonomous_classes,
                window=settings.autonomy_window,
                audit=lambda kind, subject, data: append_audit(session, kind, subject, data),
            )
            allowed = decision.allowed
        except LookupError:
            pass  # the proposal row was judged concurrently; the approval's verdict stands
    session.flush()
    return VerificationOutcome(row.id, verdict.outcome, klass, allowed)


def verify_due(
    session: Session,
    settings: WorldModelSettings,
    *,
    now: datetime | None = None,
    entity_of: EntityOf = entity_of_alert,
) -> list[VerificationOutcome]:
    at = now or datetime.now(UTC)
    done = []
    for approval_id in due_for_verification(session, at):
        outcome = verify_approval(session, approval_id, settings, now=at, entity_of=entity_of)
        if outcome is not None:
            done.append(outcome)
    return done
