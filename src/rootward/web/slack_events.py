"""`POST /api/v1/slack/events`: Slack's Events API, for questions in an incident's thread.

Parse, verify, call one function (`chat/threads.handle`), answer at once:
the reply is queued in the outbox in the same transaction, so Slack gets
its 2xx within its 3 seconds however slow its Web API is for the reply.
With a model configured a question's answer waits on the model, so it is
handled after the response (outcome `queued`); a retry Slack sends meanwhile
is still answered once, by event id.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, BackgroundTasks, Depends, HTTPException, Request
from fastapi.responses import JSONResponse

from rootward.actions.slack_interaction import SlackRequestRefused, SlackVerifier
from rootward.chat.slack_events import ByEventId, SlackEventRefused, answer_event, envelope, thread_message
from rootward.notify.threads import parse_thread_text
from rootward.store.audit import append_audit
from rootward.web.approvals import client_source

router = APIRouter()

RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"description": "Signed, but not an Events API payload."},
    401: {"description": "Unsigned, badly signed or stale request (a replay is answered once, by event id)."},
    404: {"description": "Slack is not configured for events (notify.slack.signing_secret)."},
}


async def _raw_body(request: Request) -> bytes:
    return await request.body()


def _verifier(request: Request) -> SlackVerifier | None:
    verifier: SlackVerifier | None = getattr(request.app.state, "slack_event_verifier", None)
    if verifier is None:
        slack = request.app.state.settings.notify.slack
        if slack is None or slack.signing_secret is None:
            return None
        verifier = SlackVerifier(slack.signing_secret.get_secret_value(), seen=ByEventId())
        request.app.state.slack_event_verifier = verifier
    return verifier


@router.post("/api/v1/slack/events", responses=RESPONSES)
def slack_events(request: Request, background: BackgroundTasks, body: bytes = Depends(_raw_body)) -> JSONResponse:
    """Slack's event subscription: URL verification, and mentions or replies in an incident's thread."""
    verifier = _verifier(request)
    if verifier is None:
        raise HTTPException(404, "Slack events are not configured (notify.slack.signing_secret)")
    try:
        verifier.verify(
            body, request.headers.get("x-slack-request-timestamp"), request.headers.get("x-slack-signature")
        )
    except SlackRequestRefused as exc:
        source = client_source(request)
        if request.app.state.refusals.admit("slack.refused", source, str(exc)):
            with request.app.state.sessions() as session, session.begin():
                append_audit(session, "slack.refused", "slack-events", {"reason": str(exc), "source": source})
        raise HTTPException(401, str(exc)) from None
    try:
        payload = envelope(body)
    except SlackEventRefused as exc:
        raise HTTPException(400, str(exc)) from None
    if payload["type"] == "url_verification":
        return JSONResponse({"challenge": str(payload.get("challenge", ""))})
    llm = request.app.state.settings.llm
    message = thread_message(payload) if payload["type"] == "event_callback" else None
    if llm.provider != "none" and message is not None and parse_thread_text(message.text).kind == "ask":
        # a model may take longer than Slack's 3-second ack: answer after the response
        background.add_task(answer_event, request.app.state.sessions, payload, llm=llm)
        return JSONResponse({"ok": True, "outcome": "queued"})
    return JSONResponse({"ok": True, "outcome": answer_event(request.app.state.sessions, payload, llm=llm)})
