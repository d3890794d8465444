"""A generic signed webhook, for Jira/PagerDuty/Opsgenie bridges.

The body is the notification JSON; `X-Rootward-Signature` is
`sha256=HMAC(secret, "<timestamp>.<body>")` with `X-Rootward-Timestamp`, the
same scheme Slack uses, so receivers can refuse stale or forged calls.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rootward.notify.channels import DeliveryFailed
from rootward.notify.message import Notification


class WebhookSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="webhook", description="Channel name in the outbox")
    url: str
    secret: SecretStr = Field(description="HMAC key shared with the receiver")
    timeout_s: float = Field(default=10.0, gt=0)


def sign(secret: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


class WebhookChannel:
    def __init__(self, settings: WebhookSettings) -> None:
        self._settings = settings
        self.name = settings.name

    def send(self, notification: Notification, *, idempotency_key: str) -> str:
        body = json.dumps(notification.to_dict(), sort_keys=True).encode()
        ts = str(int(time.time()))
        headers = {
            "content-type": "application/json",
            "x-rootward-timestamp": ts,
            "x-rootward-signature": sign(self._settings.secret.get_secret_value(), ts, body),
            "idempotency-key": idempotency_key,
        }
        import httpx  # here, not at the top: every CLI command imports the settings, few of them send anything

        try:
            response = httpx.post(self._settings.url, content=body, headers=headers, timeout=self._settings.timeout_s)
        except httpx.HTTPError as exc:
            raise DeliveryFailed(f"{self.name}: {exc.__class__.__name__}: {exc}") from exc
        if response.status_code >= 300:
            raise DeliveryFailed(f"{self.name}: HTTP {response.status_code}")
        return response.headers.get("x-request-id", str(response.status_code))
