"""One message in an incident's thread → its effect and the reply text, under the role model.

A chat identity maps to a rootward user (`rootward users add NAME --slack U…`
or `--matrix @…`); an unmapped or disabled sender is refused. A viewer asks
and asks "why not X?"; a responder also reruns, acknowledges and resolves;
approving and rejecting go through `decide`, which enforces the approver
role and audits every refusal. Every effect is written in the caller's
transaction, together with the reply, so a retried event that finds its
reply queued has had its effect exactly once.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootward.actions.approvals import Decision, Via, decide
from rootward.domain.alert import Severity
from rootward.domain.investigation import InvestigationResult
from rootward.domain.roles import Role
from rootward.engine.followup import Answer
from rootward.engine.followup_answer import answer_followup
from rootward.engine.followup_context import context_of
from rootward.engine.why_not import why_not
from rootward.notify.threads import ThreadCommand
from rootward.runtime.queue import enqueue_investigation
from rootward.store.alerts import AlertGroupRow
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import append_audit
from rootward.store.investigations import InvestigationRow
from rootward.store.users import User

NEEDS: dict[str, Role] = {
    "ask": Role.VIEWER,
    "why_not": Role.VIEWER,
    "rerun": Role.RESPONDER,
    "ack": Role.RESPONDER,
    "resolve": Role.RESPONDER,
    "approve": Role.VIEWER,  # `decide` refuses (and audits) anyone below approver
    "reject": Role.VIEWER,
}
MAX_CITED = 6


def with_cites(reply: Answer, result: InvestigationResult) -> str:
    """The answer and, under it, each cited evidence id with its kind and cite."""
    lines = [reply.text]
    cited = [e for e in reply.evidence if e in result.evidence][:MAX_CITED]
    others = list(reply.cites[: MAX_CITED - len(cited)])
    if cited or others:
        lines += ["", "Evidence:"] + [f"• {e} ({result.evidence[e].kind}) `{result.evidence[e].cite}`" for e in cited]
        lines += [f"• `{c}` (in the incident's data)" for c in others]
    if reply.note:
        lines += ["", f"_({reply.note})_"]
    return "\n".join(lines)


def _rerun(session: Session, row: InvestigationRow, user: User) -> str:
    group = session.get(AlertGroupRow, row.group_id) if row.group_id else None
    if group is None:
        return "Nothing to rerun: this investigation came from an imported bundle, not an alert group."
    rank = Severity(group.severity).rank if group.severity in Severity.__members__ else Severity.P2.rank
    job_id = enqueue_investigation(session, group.id, rank, group.tier)
    group.investigation_job_id = job_id
    append_audit(session, "incident.rerun", row.id, {"by": user.name, "job_id": job_id, "group_id": group.id})
    return f"Rerunning: investigation job `{job_id}` queued for group `{group.id}` by {user.name}."


def _ack(session: Session, row: InvestigationRow, user: User) -> str:
    append_audit(session, "incident.acknowledged", row.id, {"by": user.name, "at": datetime.now(UTC).isoformat()})
    return f"Acknowledged by {user.name}."


def _resolve(session: Session, row: InvestigationRow, user: User) -> str:
    group = session.get(AlertGroupRow, row.group_id) if row.group_id else None
    if group is not None:
        group.status = "resolved"
    append_audit(session, "incident.resolved", row.id, {"by": user.name, "group_id": row.group_id})
    return f"Resolved by {user.name}" + (f" (alert group `{group.id}` closed)." if group else ".")


def _decision(session: Session, row: InvestigationRow, user: User, command: ThreadCommand, via: Via) -> str:
    approval_id = command.argument
    if not approval_id:
        pending = session.scalars(
            select(ApprovalRow.id).where(ApprovalRow.investigation_id == row.id, ApprovalRow.status == "pending")
        ).all()
        if len(pending) != 1:
            return (
                "No pending approval for this incident." if not pending else "Several approvals are pending: name one."
            )
        approval_id = pending[0]
    verb: Decision = "approve" if command.kind == "approve" else "reject"
    outcome = decide(session, approval_id, user, verb, via=via)
    return f"{approval_id}: {outcome.status} by {user.name}" if outcome.ok else f"refused: {outcome.reason}"


def may(user: User | None, kind: str) -> bool:
    """Whether `user` (None: an unmapped sender) may give a command of `kind`."""
    return user is not None and user.role.at_least(NEEDS[kind])


def respond(
    session: Session,
    row: InvestigationRow,
    user: User | None,
    command: ThreadCommand,
    *,
    via: Via,
    sender: str,
    answered: Answer | None = None,
) -> str:
    """Carry out `command` for `user` on the investigation `row`; the text to post in the thread.

    `answered`: the follow-up's answer when the caller worked it out before its transaction (`chat/threads`:
    reading the incident's data and asking a model must not hold the database); otherwise it is answered here,
    in rule mode."""
    if user is None:
        flag = "--slack" if via == "slack" else "--matrix"
        return f"refused: {sender} is not a rootward user (an admin adds one: rootward users add NAME {flag} {sender})"
    needed = NEEDS[command.kind]
    if not user.role.at_least(needed):
        return f"refused: {user.name} is {user.role.value}; {command.kind.replace('_', ' ')} needs {needed.value}"
    result = row.investigation
    match command.kind:
        case "ask":
            reply = answered or answer_followup(result, command.text, context_of(row.bundle_path))
            return with_cites(reply, result)
        case "why_not":
            return with_cites(why_not(result, command.argument), result)
        case "rerun":
            return _rerun(session, row, user)
        case "ack":
            return _ack(session, row, user)
        case "resolve":
            return _resolve(session, row, user)
        case _:
            return _decision(session, row, user, command, via)
