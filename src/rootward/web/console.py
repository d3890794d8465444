"""The web console: server-rendered pages over the stored investigations.

Handlers parse the request, call one store or engine function, and render.
Every page needs a signed-in user: signing in with an API token starts a
server-side session whose random id is the HttpOnly cookie (web/auth.py).
Every post goes through `form_user` (same origin and the session's CSRF
token, which each form carries); approving needs the approver role, which
`decide` enforces and audits.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, BackgroundTasks, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from rootward.actions.approvals import decide
from rootward.domain.proposal_state import proposal_states
from rootward.domain.roles import Role
from rootward.engine.followup import Answer
from rootward.engine.followup_answer import answer_followup
from rootward.engine.followup_context import context_of
from rootward.engine.followup_llm import SYSTEM_PROMPT
from rootward.eval.golden_export import export_archive, truth_from_feedback
from rootward.llm.trial_runs import active_variant
from rootward.runtime.rerun import CannotRerun, NoSuchInvestigation, rerun_investigation
from rootward.store.approvals import ApprovalRow, approval_facts
from rootward.store.console_sessions import end_session, start_session
from rootward.store.investigations import (
    FeedbackRow,
    IncidentFilter,
    InvestigationRow,
    add_feedback,
    list_investigations,
    quality_by_service,
)
from rootward.store.users import User
from rootward.web.auth import (
    SESSION_COOKIE,
    clear_session_cookie,
    form_user,
    refuse_cross_site,
    require,
    set_session_cookie,
)
from rootward.web.feedback_form import feedback_fields
from rootward.web.incident_page import FormError, summary
from rootward.web.pages import incident_page, page, signed_in

router = APIRouter()


class AskIn(BaseModel):
    """A follow-up question about one investigation."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=2000, description="e.g. 'what changed before the incident?'")


class AskOut(BaseModel):
    answer: str
    evidence: list[str] = Field(description="Evidence ids of the investigation the answer cites.")
    cites: list[str] = Field(
        default_factory=list, description="Cites of the incident's data the RCA did not cite (e.g. changes.json:<id>)."
    )
    source: Literal["rule", "llm"] = Field(
        default="rule", description="Who wrote the answer: rule | llm (its cites checked by code)"
    )
    note: str = Field(default="", description="With a model configured: what it was shown, or why rule mode answered")


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request) -> HTMLResponse:
    return page(request, "login.html", None)


@router.post("/login")
def login(request: Request, token: str = Form(..., max_length=200)) -> Response:
    refuse_cross_site(request)  # no one signs a browser in to their account from another site
    ttl = timedelta(hours=request.app.state.settings.server.session_ttl_h)
    with request.app.state.sessions() as session, session.begin():
        new = start_session(session, token.strip(), ttl)
    if new is None:
        return page(request, "login.html", None, error="Unknown token.")
    response = RedirectResponse("/incidents", status_code=303)
    set_session_cookie(request, response, new.session_id, ttl)
    return response


@router.post("/logout")
def logout(request: Request, _user: User = Depends(form_user)) -> Response:
    """End the session on the server too: a copy of the cookie is worthless from now on."""
    session_id = request.cookies.get(SESSION_COOKIE)
    if session_id:
        with request.app.state.sessions() as session, session.begin():
            end_session(session, session_id)
    response = RedirectResponse("/login", status_code=303)
    clear_session_cookie(request, response)
    return response


@router.get("/")
def home() -> Response:
    return RedirectResponse("/incidents", status_code=303)


def _filter(request: Request) -> IncidentFilter:
    q = request.query_params
    return IncidentFilter(
        status=q.get("status") or None,
        service=q.get("service") or None,
        severity=q.get("severity") or None,
        tier=q.get("tier") or None,
        state=q.get("state") or None,
        source=q.get("source") or None,
    )


@router.get("/incidents", response_class=HTMLResponse)
def incidents(request: Request) -> HTMLResponse:
    user = signed_in(request)
    flt = _filter(request)
    with request.app.state.sessions() as session:
        rows = list_investigations(session, flt, limit=100)
    query = urlencode({k: v for k, v in vars(flt).items() if v})
    return page(request, "incidents.html", user, rows=rows, flt=flt, query=query)


@router.get("/incidents/rows", response_class=HTMLResponse)
def incident_rows(request: Request) -> HTMLResponse:
    user = signed_in(request)
    with request.app.state.sessions() as session:
        rows = list_investigations(session, _filter(request), limit=100)
    return page(request, "_rows.html", user, rows=rows)


@router.get("/incidents/{investigation_id}", response_class=HTMLResponse)
def incident(request: Request, investigation_id: str) -> HTMLResponse:
    return incident_page(request, signed_in(request), investigation_id)


@router.post("/incidents/{investigation_id}/ask", response_class=HTMLResponse)
def ask(
    request: Request, investigation_id: str, question: str = Form("", max_length=2000), user: User = Depends(form_user)
) -> HTMLResponse:
    if not question.strip():
        error = FormError("ask", "Type a question first, e.g. what changed before the incident?", 400)
        return incident_page(request, user, investigation_id, status_code=400, form_error=error)
    reply = _answer(request, investigation_id, question)
    return incident_page(request, user, investigation_id, answer=reply, question=question)


def _answer(request: Request, investigation_id: str, question: str) -> Answer:
    """The follow-up answer (by the configured model, its calls charged to the incident, or in rule mode)."""
    with request.app.state.sessions() as session:
        row = session.get(InvestigationRow, investigation_id)
        variant = active_variant(session, SYSTEM_PROMPT) if row is not None else "control"
    if row is None:
        raise HTTPException(404, f"no investigation {investigation_id}")
    client = _llm_client(request, row.id, row.service)
    context = context_of(row.bundle_path)
    return answer_followup(row.investigation, question, context, client=client, severity=row.severity, variant=variant)


@router.post("/incidents/{investigation_id}/feedback", response_class=HTMLResponse)
def feedback(
    request: Request,
    investigation_id: str,
    background: BackgroundTasks,
    verdict: str = Form(...),
    corrected_entity: str = Form(""),
    corrected_fault: str = Form(""),
    note: str = Form(""),
    user: User = Depends(form_user),
) -> Response:
    def refused(status: int, message: str) -> HTMLResponse:
        error = FormError("feedback", message, status)
        values = {"verdict": verdict, "corrected_entity": corrected_entity, "corrected_fault": corrected_fault}
        return incident_page(
            request, user, investigation_id, status_code=status, form_error=error, form_values={**values, "note": note}
        )

    if not user.role.at_least(Role.RESPONDER):
        return refused(403, f"{user.name} is {user.role.value}; feedback needs the responder role")
    try:
        corrected_entity, corrected_fault, note = feedback_fields(corrected_entity, corrected_fault, note)
        with request.app.state.sessions() as session, session.begin():
            add_feedback(
                session,
                investigation_id,
                target="rca",
                verdict=verdict,
                by=user.name,
                corrected_entity=corrected_entity or None,
                corrected_fault=corrected_fault or None,
                note=note,
            )
    except ValueError as exc:  # a field too long (feedback_form), an unknown verdict or investigation (the store)
        return refused(400, str(exc))
    if verdict in ("accepted", "edited"):
        background.add_task(_teach, request, investigation_id, corrected_entity, corrected_fault, note, user.name)
    return RedirectResponse(f"/incidents/{investigation_id}#feedback", status_code=303)


@router.post("/incidents/{investigation_id}/rerun")
def rerun(request: Request, investigation_id: str, user: User = Depends(form_user)) -> Response:
    """A new investigation of the same alert group on fresh data (after a source was fixed)."""
    if not user.role.at_least(Role.RESPONDER):
        raise HTTPException(403, "re-investigating needs the responder role")
    try:
        job_id = rerun_investigation(request.app.state.sessions, investigation_id, by=user.name)
    except CannotRerun as exc:
        raise HTTPException(404 if isinstance(exc, NoSuchInvestigation) else 400, str(exc)) from None
    return RedirectResponse(f"/incidents/{investigation_id}?{urlencode({'rerun': job_id})}", status_code=303)


def _teach(request: Request, investigation_id: str, entity: str, fault: str, note: str, by: str) -> None:
    """After the response: a runbook draft and the world model's learning (with a model, drafting waits on it)."""
    from rootward.runtime.resolution import teach_from_confirmed

    with request.app.state.sessions() as session:
        row = session.get(InvestigationRow, investigation_id)
        service = row.service if row is not None else ""
    llm = _llm_client(request, investigation_id, service)
    teach_from_confirmed(request.app.state.sessions, investigation_id, entity, fault, note=note, by=by, llm=llm)


def _llm_client(request: Request, investigation_id: str, service: str) -> Any:
    """The configured model, its calls charged to the investigation; None in rule mode."""
    from rootward.runtime.llm_charging import charged_llm_client

    return charged_llm_client(
        request.app.state.settings.llm, request.app.state.sessions, lambda: (investigation_id, service)
    )


@router.post("/approvals/{approval_id}/{decision}")
def decide_in_console(
    request: Request,
    approval_id: str,
    decision: str,
    back: str = Form("", max_length=20, description="`headline`: return to the headline card"),
    user: User = Depends(form_user),
) -> Response:
    """The console's Approve/Reject: recorded as decided in the console; refused with the API's status and words."""
    if decision not in ("approve", "reject"):
        raise HTTPException(404)
    refusals = request.app.state.refusals
    with request.app.state.sessions() as session, session.begin():
        outcome = decide(
            session,
            approval_id,
            user,
            "approve" if decision == "approve" else "reject",
            via="console",
            refusals=refusals,
        )
        row = session.get(ApprovalRow, approval_id)
        investigation_id = row.investigation_id if row else None
    if outcome.ok:
        anchor = "headline" if back == "headline" else f"approval-{approval_id}"
        target = f"/incidents/{investigation_id}#{anchor}" if investigation_id else "/approvals"
        return RedirectResponse(target, status_code=303)
    error = FormError(f"approval-{approval_id}", outcome.reason, outcome.http_status)
    with request.app.state.sessions() as session:
        known = investigation_id is not None and session.get(InvestigationRow, investigation_id) is not None
    if known:
        return incident_page(request, user, str(investigation_id), status_code=error.status, form_error=error)
    return _approvals_page(request, user, status_code=error.status, form_error=error)


def _approvals_page(request: Request, user: User, *, status_code: int = 200, **extra: Any) -> HTMLResponse:
    verbs = request.app.state.settings.actions.executor.runnable_verbs()
    with request.app.state.sessions() as session:
        rows = list(session.scalars(select(ApprovalRow).order_by(ApprovalRow.requested_at.desc()).limit(200)))
        states = proposal_states([], [approval_facts(r) for r in rows], verbs)
    return page(
        request, "approvals.html", user, status_code=status_code, rows=list(zip(rows, states, strict=True)), **extra
    )


@router.get("/approvals", response_class=HTMLResponse)
def approvals_page(request: Request) -> HTMLResponse:
    return _approvals_page(request, signed_in(request))


@router.get("/quality", response_class=HTMLResponse)
def quality(request: Request) -> HTMLResponse:
    user = signed_in(request)
    with request.app.state.sessions() as session:
        rows = quality_by_service(session)
    return page(request, "quality.html", user, rows=rows)


@router.get(
    "/api/v1/feedback/export",
    response_class=Response,
    responses={200: {"content": {"application/gzip": {}}, "description": "A .tar.gz of golden bundles."}},
)
def export_golden(request: Request, _user: User = Depends(require(Role.VIEWER))) -> Response:
    """Every RCA with feedback whose data is still on disk, as golden bundles (.tar.gz)."""
    return _golden_archive(request)


@router.get("/quality/export", include_in_schema=False)
def export_golden_in_console(request: Request) -> Response:
    """The same archive for the console's signed-in user (the API route takes no cookie)."""
    signed_in(request)
    return _golden_archive(request)


def _golden_archive(request: Request) -> Response:
    items = []
    with request.app.state.sessions() as session:
        rated = session.execute(
            select(InvestigationRow, FeedbackRow)
            .join(FeedbackRow, FeedbackRow.investigation_id == InvestigationRow.id)
            .where(FeedbackRow.target == "rca")
            .order_by(FeedbackRow.created_at)
        ).all()
    for row, fb in rated:
        if row.bundle_path and Path(row.bundle_path).is_dir():
            truth = truth_from_feedback(row.result, fb.verdict, fb.corrected_entity, fb.corrected_fault)
            items.append((f"{row.bundle or row.id}-{fb.id[-6:]}", Path(row.bundle_path), truth))
    return Response(
        export_archive(items),
        media_type="application/gzip",
        headers={"content-disposition": 'attachment; filename="rootward-golden.tar.gz"'},
    )


@router.post(
    "/api/v1/investigations/{investigation_id}/ask",
    responses={404: {"description": "No such investigation."}},
)
def ask_api(
    request: Request, investigation_id: str, body: AskIn, _user: User = Depends(require(Role.VIEWER))
) -> AskOut:
    """Answer a follow-up question from the investigation's own evidence, with citations."""
    reply = _answer(request, investigation_id, body.question)
    return AskOut(
        answer=reply.text, evidence=list(reply.evidence), cites=list(reply.cites), source=reply.source, note=reply.note
    )


@router.get(
    "/api/v1/investigations/{investigation_id}",
    responses={404: {"description": "No such investigation."}},
)
def investigation_api(
    request: Request, investigation_id: str, _user: User = Depends(require(Role.VIEWER))
) -> dict[str, Any]:
    """One investigation's headline card and each proposal with its one status (the console shows the same)."""
    return summary(request, investigation_id)
