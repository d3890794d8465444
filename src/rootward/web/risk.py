"""The latest risk report: `/api/v1/risk` (JSON) and the console's `/risk` list.

Both read the last `risk.report` entry of the audit log (written by the
daily job in `serve` or `rootward risk report --post`), so every replica
shows the same report and nothing is computed in a request.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from rootward.domain.roles import Role
from rootward.runtime.risk_report import latest_report
from rootward.store.users import User
from rootward.web.auth import console_session, console_user, require, to_login
from rootward.web.pages import templates

router = APIRouter(tags=["risk"])
EMPTY: dict[str, Any] = {"generated_at": None, "series_read": 0, "gaps": [], "entries": []}


def _latest(request: Request) -> dict[str, Any]:
    with request.app.state.sessions() as session:
        return latest_report(session) or EMPTY


@router.get("/api/v1/risk")
def risk_report(request: Request, limit: int = 50, _user: User = Depends(require(Role.VIEWER))) -> dict[str, Any]:
    """The latest predictive risk report: entries ranked by urgency and blast radius, each citing its series."""
    report = _latest(request)
    return {**report, "entries": report["entries"][: max(0, limit)]}


@router.get("/risk", response_class=HTMLResponse)
def risk_page(request: Request) -> HTMLResponse:
    user = console_user(request)
    if user is None:
        raise to_login()
    found = console_session(request)
    context = {"user": user, "csrf_token": found.csrf_token if found else "", "report": _latest(request)}
    return templates.TemplateResponse(request, "risk.html", context)
