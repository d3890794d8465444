"""Rendering console pages: the templates, the signed-in user, the incident page with its inline errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from rootward.domain.roles import Role
from rootward.store.users import User
from rootward.web.auth import console_session, console_user, to_login
from rootward.web.incident_page import incident_context

templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
templates.env.filters["fromjson"] = json.loads


def signed_in(request: Request) -> User:
    """The console's user, or a redirect to the sign-in page."""
    user = console_user(request)
    if user is None:
        raise to_login()
    return user


def page(request: Request, name: str, user: User | None, *, status_code: int = 200, **context: Any) -> HTMLResponse:
    found = console_session(request) if user is not None else None
    csrf = found.csrf_token if found is not None else ""
    response = templates.TemplateResponse(request, name, {"user": user, "csrf_token": csrf, **context})
    response.status_code = status_code
    return response


def incident_page(
    request: Request, user: User, investigation_id: str, *, status_code: int = 200, **extra: Any
) -> HTMLResponse:
    context = incident_context(request, investigation_id)
    return page(
        request,
        "incident.html",
        user,
        status_code=status_code,
        can_approve=user.role.at_least(Role.APPROVER),
        can_respond=user.role.at_least(Role.RESPONDER),
        **context,
        **extra,
    )
