"""Approval endpoints: the API buttons and Slack's interaction callback.

Refusals anyone can provoke (a forged Slack request, a random approval id)
are audited through the app's `RefusalThrottle`: one row per source and
minute plus a summary row with the count, so a flood cannot grow the audit
log or stall intake behind the audit chain's lock.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse
from sqlalchemy import select

from rootward.actions.approvals import decide
from rootward.actions.slack_interaction import (
    DbReplayCache,
    SlackRequestRefused,
    SlackVerifier,
    decide_click,
    parse_click,
)
from rootward.domain.proposal_state import proposal_states
from rootward.domain.roles import Role
from rootward.store.approvals import ApprovalRow, approval_facts
from rootward.store.audit import append_audit
from rootward.store.users import User
from rootward.web.auth import require

router = APIRouter()


def approval_json(row: ApprovalRow, executor_verbs: frozenset[str] = frozenset()) -> dict[str, Any]:
    """One request as the API shows it, with the status words and executor note the console shows too."""
    [state] = proposal_states([], [approval_facts(row)], executor_verbs)
    return {
        "id": row.id,
        "investigation_id": row.investigation_id,
        "proposal_hash": row.proposal_hash,
        "action": row.action_json,
        "text": state.text,
        "status_text": state.words,
        "executor_note": state.executor_note,
        "prediction": row.prediction,
        "status": row.status,
        "requested_at": row.requested_at.isoformat(),
        "expires_at": row.expires_at.isoformat(),
        "decided_by": row.decided_by,
        "decided_via": row.decided_via,
        "result": row.result,
        "verdict": row.verdict,
    }


@router.get("/api/v1/approvals")
def list_approvals(
    request: Request, status: str | None = None, _user: User = Depends(require(Role.VIEWER))
) -> list[dict[str, Any]]:
    query = select(ApprovalRow).order_by(ApprovalRow.requested_at.desc()).limit(200)
    if status:
        query = query.where(ApprovalRow.status == status)
    verbs = request.app.state.settings.actions.executor.runnable_verbs()
    with request.app.state.sessions() as session:
        return [approval_json(r, verbs) for r in session.scalars(query)]


def client_source(request: Request) -> str:
    """Who sent a request, for counting refusals: the peer address (the proxy's, behind one)."""
    return request.client.host if request.client else "unknown"


def _decide(request: Request, approval_id: str, user: User, decision: str) -> JSONResponse:
    with request.app.state.sessions() as session, session.begin():
        outcome = decide(
            session,
            approval_id,
            user,
            "approve" if decision == "approve" else "reject",
            via="api",
            refusals=request.app.state.refusals,
        )
    if not outcome.ok:
        raise HTTPException(outcome.http_status, outcome.reason)
    return JSONResponse({"id": approval_id, "status": outcome.status})


DECISION_RESPONSES: dict[int | str, dict[str, Any]] = {
    403: {"description": "Refused: the user is not an approver (the reason names the role)."},
    404: {"description": "No such approval request."},
    409: {"description": "Refused: expired, or already decided (the reason says which)."},
}


@router.post("/api/v1/approvals/{approval_id}/approve", responses=DECISION_RESPONSES)
def approve(request: Request, approval_id: str, user: User = Depends(require(Role.VIEWER))) -> JSONResponse:
    # Any signed-in user may try; `decide` refuses and audits anyone below approver.
    return _decide(request, approval_id, user, "approve")


@router.post("/api/v1/approvals/{approval_id}/reject", responses=DECISION_RESPONSES)
def reject(request: Request, approval_id: str, user: User = Depends(require(Role.VIEWER))) -> JSONResponse:
    return _decide(request, approval_id, user, "reject")


async def _raw_body(request: Request) -> bytes:
    return await request.body()


def _slack_verifier(request: Request) -> SlackVerifier | None:
    verifier: SlackVerifier | None = getattr(request.app.state, "slack_verifier", None)
    if verifier is None:
        slack = request.app.state.settings.notify.slack
        if slack is None or slack.signing_secret is None:
            return None
        verifier = SlackVerifier(
            slack.signing_secret.get_secret_value(), seen=DbReplayCache(request.app.state.sessions)
        )
        request.app.state.slack_verifier = verifier
    return verifier


SLACK_REFUSAL_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"description": "Unsigned, badly signed, stale, replayed or malformed request."},
    404: {"description": "Slack interactions are not configured (notify.slack.signing_secret)."},
}


@router.post("/api/v1/slack/interactions", responses=SLACK_REFUSAL_RESPONSES)
def slack_interaction(request: Request, body: bytes = Depends(_raw_body)) -> JSONResponse:
    """Slack's interactivity callback: an approver's Approve/Reject click, signed by Slack."""
    verifier = _slack_verifier(request)
    if verifier is None:
        raise HTTPException(404, "Slack interactions are not configured (notify.slack.signing_secret)")
    source = client_source(request)
    try:
        verifier.verify(
            body, request.headers.get("x-slack-request-timestamp"), request.headers.get("x-slack-signature")
        )
        click = parse_click(body)
    except SlackRequestRefused as exc:
        if request.app.state.refusals.admit("slack.refused", source, str(exc)):
            with request.app.state.sessions() as session, session.begin():
                append_audit(session, "slack.refused", "slack", {"reason": str(exc), "source": source})
        raise HTTPException(401, str(exc)) from None
    with request.app.state.sessions() as session, session.begin():
        text = decide_click(session, click, refusals=request.app.state.refusals)
    return JSONResponse({"response_type": "ephemeral", "replace_original": False, "text": text})
