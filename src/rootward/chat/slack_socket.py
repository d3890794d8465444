"""Slack Socket Mode: the Events API over a websocket rootward opens, for installs without a public URL.

With an app-level token (`xapp-…`, scope `connections:write`) rootward calls
`apps.connections.open` for a one-off `wss://` URL and keeps that socket
open; Slack sends a `hello`, then one envelope per event
(`{"type": "events_api", "envelope_id", "payload", "retry_attempt"}`), and
re-sends an envelope not acknowledged within 3 seconds. Each envelope is
acknowledged by its `envelope_id` before anything else is done with it; the
payload is the `event_callback` the Events API would have posted, answered
by `chat/slack_events.answer_event` (once per `event_id`, durably), so a
retry or an event that also arrived over HTTP changes nothing. An Approve or
Reject click (`interactive` envelope, `block_actions`) is decided like the
HTTP interactivity callback decides it, and the outcome is told to the
clicker through the payload's `response_url`.

The websocket is slack_sdk's built-in client (no extra dependency): it
reconnects on its own when Slack closes the socket or asks it to
(`disconnect`, e.g. `refresh_requested`); `run` covers what it does not, a
first connection that fails (Slack unreachable, a refused token), with a
back-off, and logs each state change once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.builtin import SocketModeClient
from slack_sdk.socket_mode.client import BaseSocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web import WebClient
from slack_sdk.webhook import WebhookClient
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.slack_interaction import SlackRequestRefused, click_of_payload, decide_click
from rootward.chat.slack_events import EventOutcome, answer_event
from rootward.llm.settings import LLMSettings
from rootward.store.audit_refusals import RefusalThrottle

log = logging.getLogger("rootward.chat.slack_socket")
MAX_BACKOFF_S = 60.0


@dataclass(frozen=True)
class SocketEvent:
    """What became of one envelope: logged, and handed to `on_event` (tests, metrics)."""

    envelope_id: str
    kind: str  # events_api, interactive, slash_commands
    event_id: str | None
    retry_attempt: int
    # None: neither an event nor a button click (a slash command: acknowledged, nothing to do)
    outcome: EventOutcome | Literal["failed", "decided", "refused"] | None


class SlackSocketMode:
    def __init__(
        self,
        app_token: str,
        sessions: sessionmaker[Session],
        *,
        api_url: str = "https://slack.com/api/",
        timeout_s: float = 10.0,
        reconnect_s: float = 5.0,
        on_event: Callable[[SocketEvent], None] | None = None,
        llm: LLMSettings | None = None,
    ) -> None:
        self._app_token = app_token
        self._sessions = sessions
        self._web = WebClient(base_url=api_url, timeout=int(timeout_s))
        self._reconnect_s = reconnect_s
        self._on_event = on_event
        self._timeout_s = int(timeout_s)
        self._refusals = RefusalThrottle()
        self._llm = llm  # questions are answered with this model (None: rule mode); the ack is already sent

    def on_request(self, client: BaseSocketModeClient, request: SocketModeRequest) -> None:
        """Acknowledge the envelope at once, then answer the event or decide the button click it carries."""
        client.send_socket_mode_response(SocketModeResponse(envelope_id=request.envelope_id))
        payload: dict[str, Any] = request.payload if isinstance(request.payload, dict) else {}
        outcome: EventOutcome | Literal["failed", "decided", "refused"] | None = None
        if request.type == "events_api":
            outcome = self._answer(payload)
        elif request.type == "interactive" and payload.get("type") == "block_actions":
            outcome = self._decide(payload)
        event = SocketEvent(
            envelope_id=request.envelope_id,
            kind=request.type,
            event_id=payload.get("event_id") if isinstance(payload.get("event_id"), str) else None,
            retry_attempt=request.retry_attempt or 0,
            outcome=outcome,
        )
        log.info(
            "Slack Socket Mode: %s envelope %s (event %s, retry %d): %s",
            event.kind,
            event.envelope_id,
            event.event_id or "-",
            event.retry_attempt,
            event.outcome or "acknowledged",
        )
        if self._on_event is not None:
            self._on_event(event)

    def _answer(self, payload: dict[str, Any]) -> EventOutcome | Literal["failed"]:
        # Acknowledged already, so Slack will not send it again: say loudly which event went unanswered.
        try:
            return answer_event(self._sessions, payload, llm=self._llm)
        except Exception:
            log.exception("Slack Socket Mode: event %s could not be answered", payload.get("event_id", "-"))
            return "failed"

    def _decide(self, payload: dict[str, Any]) -> Literal["decided", "refused", "failed"]:
        """An Approve/Reject click: the same decision as the HTTP interactivity callback, told to the clicker.

        The envelope came over our own authenticated websocket, so there is no request signature to
        check; who clicked is Slack's `user.id`, mapped to a rootward user like on the HTTP path."""
        try:
            click = click_of_payload(payload)
        except SlackRequestRefused as exc:
            log.warning("Slack Socket Mode: interaction refused: %s", exc)
            return "refused"
        try:
            with self._sessions() as session, session.begin():
                text = decide_click(session, click, refusals=self._refusals)
        except Exception:
            log.exception("Slack Socket Mode: the click on approval %s could not be decided", click.approval_id)
            return "failed"
        response_url = payload.get("response_url")
        if isinstance(response_url, str) and response_url.startswith(("https://", "http://")):
            try:
                WebhookClient(response_url, timeout=self._timeout_s).send(
                    text=text, response_type="ephemeral", replace_original=False
                )
            except (SlackApiError, OSError) as exc:
                log.warning("Slack Socket Mode: could not tell the clicker (%s): %s", text, exc)
        return "refused" if text.startswith("refused") else "decided"

    def _on_message(self, client: BaseSocketModeClient, message: dict[str, Any], raw: str | None) -> None:
        if message.get("type") == "hello":
            info = message.get("connection_info") or {}
            log.info("Slack Socket Mode: connected (app %s)", info.get("app_id", "?"))
        elif message.get("type") == "disconnect":
            log.info("Slack Socket Mode: Slack asked to reconnect (%s)", message.get("reason", "no reason"))

    def client(self) -> SocketModeClient:
        client = SocketModeClient(
            app_token=self._app_token, web_client=self._web, logger=logging.getLogger(f"{log.name}.sdk")
        )
        client.socket_mode_request_listeners.append(self.on_request)
        client.message_listeners.append(self._on_message)
        return client

    def _connect(self, client: SocketModeClient) -> str | None:
        """Open a connection; None when connected, else why not."""
        try:
            client.connect_to_new_endpoint()
        except SlackApiError as exc:
            error = exc.response.get("error", "api error") if exc.response is not None else "api error"
            return (
                f"apps.connections.open refused: {error} (chat.slack.app_token: an xapp- token with connections:write)"
            )
        except OSError as exc:
            return f"Slack unreachable: {exc}"
        return None if client.is_connected() else "the websocket handshake failed"

    def run(self, stop: threading.Event) -> None:
        """Keep a Socket Mode connection open until `stop` is set."""
        client = self.client()
        wait = self._reconnect_s
        last: str | None = None
        try:
            while not stop.is_set():
                if client.is_connected():
                    wait, last = self._reconnect_s, None
                    stop.wait(1.0)
                    continue
                problem = self._connect(client)
                if problem is None:
                    continue
                if problem != last:
                    log.error("Slack Socket Mode: %s; retrying every %.0f s at most", problem, MAX_BACKOFF_S)
                last = problem
                stop.wait(wait)
                wait = min(wait * 2, MAX_BACKOFF_S)
        finally:
            client.close()
            log.info("Slack Socket Mode: closed")
