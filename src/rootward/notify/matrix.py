"""Matrix through `matrix-nio` (client-server API).

The transaction id is the outbox's idempotency key, so the homeserver itself
drops a message the outbox re-sends after a crash between send and mark. A
thread reply (`notify/threads.py`) is an `m.thread` relation to the RCA
message, replying to the question it answers.
"""

from __future__ import annotations

import asyncio
import html

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rootward.notify.channels import DeliveryFailed
from rootward.notify.message import Notification, plain_text
from rootward.notify.threads import ThreadRef, thread_of


class MatrixSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    homeserver: str = Field(description="Homeserver base URL, e.g. https://matrix.example.org")
    user_id: str = Field(description="Bot user, e.g. @rootward:example.org")
    access_token: SecretStr = Field(description="Access token of the bot user")
    room_id: str = Field(description="Incident room id, e.g. !abc:example.org")
    device_id: str = Field(default="ROOTWARD", description="Device id the token belongs to")
    timeout_s: float = Field(default=10.0, gt=0)


def matrix_html(n: Notification) -> str:
    return "<br>".join(html.escape(line) for line in plain_text(n).splitlines())


def _lines_html(text: str) -> str:
    return "<br>".join(html.escape(line) for line in text.splitlines())


def thread_content(text: str, where: ThreadRef) -> dict[str, object]:
    """An `m.notice` in the thread of `where.root`, replying to the question (clients without threads see a reply)."""
    return {
        "msgtype": "m.notice",
        "body": text,
        "format": "org.matrix.custom.html",
        "formatted_body": _lines_html(text),
        "m.relates_to": {
            "rel_type": "m.thread",
            "event_id": where.root,
            "is_falling_back": True,
            "m.in_reply_to": {"event_id": where.answering or where.root},
        },
    }


def message_content(notification: Notification) -> dict[str, object]:
    where = thread_of(notification)
    if where is not None:
        return thread_content(notification.summary, where)
    content: dict[str, object] = {
        "msgtype": "m.text",
        "body": plain_text(notification),
        "format": "org.matrix.custom.html",
        "formatted_body": matrix_html(notification),
        "org.rootward.investigation_id": notification.investigation_id,
    }
    if notification.extra.get("approval_id"):
        # Reactions to this message approve or reject it (actions/matrix_approvals.py).
        content["org.rootward.approval_id"] = str(notification.extra["approval_id"])
    return content


class MatrixChannel:
    name = "matrix"

    def __init__(self, settings: MatrixSettings) -> None:
        self._settings = settings

    async def _send(self, notification: Notification, idempotency_key: str) -> str:
        import nio  # imported on first use: matrix-nio costs seconds at startup

        s = self._settings
        client = nio.AsyncClient(s.homeserver, s.user_id, device_id=s.device_id)
        client.access_token = s.access_token.get_secret_value()
        client.user_id = s.user_id
        try:
            content = message_content(notification)
            room = where.room if (where := thread_of(notification)) is not None and where.room else s.room_id
            response = await asyncio.wait_for(
                client.room_send(room, "m.room.message", content, tx_id=idempotency_key), s.timeout_s
            )
        except (TimeoutError, OSError, nio.exceptions.LocalProtocolError) as exc:
            raise DeliveryFailed(f"matrix: {exc.__class__.__name__}: {exc}") from exc
        except Exception as exc:  # aiohttp client errors are not OSError subclasses
            raise DeliveryFailed(f"matrix: {exc.__class__.__name__}: {exc}") from exc
        finally:
            await client.close()
        if isinstance(response, nio.RoomSendError):
            raise DeliveryFailed(f"matrix: {response.status_code or ''} {response.message}".strip())
        return str(response.event_id)

    def send(self, notification: Notification, *, idempotency_key: str) -> str:
        return asyncio.run(self._send(notification, idempotency_key))
