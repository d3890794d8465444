"""Signed approval links (Teams' Approve / Reject buttons): a console confirmation page and an API call.

`GET /links/approvals/{token}` shows what the link would decide and asks the
signed-in user to confirm (a GET never decides: link previews and scanners
open URLs); the confirmation posts back to the same address through the
console's CSRF checks. `POST /api/v1/links/approvals/{token}` does the same
for a bearer-token caller. The link's own refusals (forged, expired, used)
are 403 with the reason; the role model is `decide`'s (403 below approver).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from rootward.actions.approval_links import check_link, decide_by_link
from rootward.domain.proposal_state import proposal_states
from rootward.domain.roles import Role
from rootward.notify.approval_links import ApprovalLink, LinkRefused
from rootward.store.approvals import ApprovalRow, approval_facts
from rootward.store.users import User
from rootward.web.auth import form_user, require
from rootward.web.pages import page, signed_in

router = APIRouter()

LINK_RESPONSES: dict[int | str, dict[str, Any]] = {
    403: {"description": "Refused: a forged, expired or used link, or a user below the approver role."},
    404: {"description": "No such approval request."},
    409: {"description": "Refused: the request expired or was already decided."},
}


def _link(request: Request, token: str) -> ApprovalLink:
    teams = request.app.state.settings.notify.teams
    secret = teams.link_secret.get_secret_value() if teams is not None and teams.link_secret is not None else None
    try:
        return check_link(secret, token, now=datetime.now(UTC))
    except LinkRefused as exc:
        raise HTTPException(403, str(exc)) from None


def _page(request: Request, user: User, token: str, *, status_code: int = 200, **extra: Any) -> HTMLResponse:
    link = None
    try:
        link = _link(request, token)
    except HTTPException as exc:
        extra.setdefault("error", exc.detail)
        status_code = exc.status_code
    state, row = None, None
    if link is not None:
        with request.app.state.sessions() as session:
            row = session.get(ApprovalRow, link.approval_id)
            if row is not None:
                verbs = request.app.state.settings.actions.executor.runnable_verbs()
                [state] = proposal_states([], [approval_facts(row)], verbs)
        if row is None and "error" not in extra:
            extra["error"], status_code = "no such approval request", 404
    context = {"link": link, "token": token, "row": row, "state": state, **extra}
    return page(request, "approval_link.html", user, status_code=status_code, **context)


@router.get("/links/approvals/{token}", response_class=HTMLResponse, responses=LINK_RESPONSES)
def confirm_page(request: Request, token: str) -> HTMLResponse:
    """What the link decides, with a confirm button; nothing is decided by opening it."""
    return _page(request, signed_in(request), token)


@router.post("/links/approvals/{token}", responses=LINK_RESPONSES)
def confirm(request: Request, token: str, user: User = Depends(form_user)) -> Response:
    link = _link(request, token)
    with request.app.state.sessions() as session, session.begin():
        outcome = decide_by_link(session, link, user, refusals=request.app.state.refusals)
        row = session.get(ApprovalRow, link.approval_id)
        investigation_id = row.investigation_id if row is not None else None
    if outcome.ok and investigation_id:
        return RedirectResponse(f"/incidents/{investigation_id}#approval-{link.approval_id}", status_code=303)
    if outcome.ok:
        return RedirectResponse("/approvals", status_code=303)
    return _page(request, user, token, status_code=outcome.http_status, error=outcome.reason)


@router.post("/api/v1/links/approvals/{token}", responses=LINK_RESPONSES)
def decide_api(request: Request, token: str, user: User = Depends(require(Role.VIEWER))) -> JSONResponse:
    """The link's decision by the token's user (any user may try; `decide` refuses below approver)."""
    link = _link(request, token)
    with request.app.state.sessions() as session, session.begin():
        outcome = decide_by_link(session, link, user, refusals=request.app.state.refusals)
    if not outcome.ok:
        raise HTTPException(outcome.http_status, outcome.reason)
    return JSONResponse({"id": link.approval_id, "status": outcome.status, "via": "teams"})
