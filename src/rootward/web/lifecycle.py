"""An incident's life cycle over HTTP: acknowledge, assign, resolve; the console's buttons and the API.

Both surfaces call the same store functions (`store/incident_events.py`) and
refuse the same way: 403 below the responder role, 404 for an unknown
incident, 409 when the change no longer applies (already resolved), each with
the same message. Resolving with a confirmed root cause then teaches what
`runtime/resolution.py` allows for the incident's source.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, BackgroundTasks, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from rootward.domain.roles import Role
from rootward.store.incident_events import LifecycleRefused, Resolution, acknowledge, assign, resolve
from rootward.store.investigations import InvestigationRow
from rootward.store.users import User
from rootward.web.auth import form_user, require
from rootward.web.incident_page import FormError, summary
from rootward.web.pages import incident_page

router = APIRouter()
RESPONSES: dict[int | str, dict[str, Any]] = {
    403: {"description": "Refused: changing an incident needs the responder role."},
    404: {"description": "No such investigation."},
    409: {"description": "Refused: the change no longer applies (e.g. already resolved)."},
}


class AssignIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    assignee: str = Field(min_length=1, max_length=120, description="who owns the incident now")


class ResolveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entity: str = Field(default="", max_length=200, description="confirmed root-cause entity; empty: the top one")
    fault_type: str = Field(default="", max_length=64, description="confirmed fault type; empty: the top one's")
    note: str = Field(default="", max_length=4000, description="what fixed it")


def _change(request: Request, user: User, investigation_id: str, kind: str, **args: str) -> tuple[int, str]:
    """Apply one life-cycle change; (0, "") when it went through, else (HTTP status, reason)."""
    if not user.role.at_least(Role.RESPONDER):
        return 403, f"{user.name} is {user.role.value}; changing an incident needs the responder role"
    try:
        with request.app.state.sessions() as session, session.begin():
            if session.get(InvestigationRow, investigation_id) is None:
                return 404, f"no investigation {investigation_id}"
            if kind == "acknowledge":
                acknowledge(session, investigation_id, user.name)
            elif kind == "assign":
                assign(session, investigation_id, args["assignee"], user.name)
            else:
                resolve(session, investigation_id, user.name, Resolution(args["entity"], args["fault"], args["note"]))
    except LifecycleRefused as exc:
        return 409, str(exc)
    return 0, ""


def _teach_later(background: BackgroundTasks, request: Request, investigation_id: str, args: dict[str, str]) -> None:
    from rootward.runtime.resolution import teach_from_confirmed

    background.add_task(
        teach_from_confirmed,
        request.app.state.sessions,
        investigation_id,
        args["entity"],
        args["fault"],
        note=args["note"],
        by=args["by"],
    )


@router.post("/incidents/{investigation_id}/lifecycle/{kind}", response_class=HTMLResponse)
def change_in_console(
    request: Request,
    investigation_id: str,
    kind: str,
    background: BackgroundTasks,
    assignee: str = Form("", max_length=120),
    entity: str = Form("", max_length=200),
    fault_type: str = Form("", max_length=64),
    note: str = Form("", max_length=4000),
    user: User = Depends(form_user),
) -> Response:
    if kind not in ("acknowledge", "assign", "resolve"):
        raise HTTPException(404)
    args = {"assignee": assignee or user.name, "entity": entity, "fault": fault_type, "note": note}
    status, reason = _change(request, user, investigation_id, kind, **args)
    if status == 404:
        raise HTTPException(404, reason)
    if status:
        error = FormError("lifecycle", reason, status)
        return incident_page(request, user, investigation_id, status_code=status, form_error=error)
    if kind == "resolve":
        _teach_later(background, request, investigation_id, {**args, "by": user.name})
    return RedirectResponse(f"/incidents/{investigation_id}#lifecycle", status_code=303)


def _api(request: Request, user: User, investigation_id: str, kind: str, **args: str) -> dict[str, Any]:
    status, reason = _change(request, user, investigation_id, kind, **args)
    if status:
        raise HTTPException(status, reason)
    return summary(request, investigation_id)


@router.post("/api/v1/investigations/{investigation_id}/acknowledge", responses=RESPONSES)
def acknowledge_api(
    request: Request, investigation_id: str, user: User = Depends(require(Role.VIEWER))
) -> dict[str, Any]:
    """Acknowledge: someone is on it (assigned to them unless someone already is)."""
    return _api(request, user, investigation_id, "acknowledge")


@router.post("/api/v1/investigations/{investigation_id}/assign", responses=RESPONSES)
def assign_api(
    request: Request, investigation_id: str, body: AssignIn, user: User = Depends(require(Role.VIEWER))
) -> dict[str, Any]:
    return _api(request, user, investigation_id, "assign", assignee=body.assignee)


@router.post("/api/v1/investigations/{investigation_id}/resolve", responses=RESPONSES)
def resolve_api(
    request: Request,
    investigation_id: str,
    body: ResolveIn,
    background: BackgroundTasks,
    user: User = Depends(require(Role.VIEWER)),
) -> dict[str, Any]:
    """Resolve with the confirmed root cause (empty: the top hypothesis was right); it feeds the learning."""
    args = {"entity": body.entity, "fault": body.fault_type, "note": body.note}
    reply = _api(request, user, investigation_id, "resolve", **args)
    _teach_later(background, request, investigation_id, {**args, "by": user.name})
    return reply
