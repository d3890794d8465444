"""PagerDuty through its REST API v2: the RCA as a note on the incident the alert came from.

`POST /incidents/{id}/notes` with `{"note": {"content": ...}}`, the headers
`Authorization: Token token=<api token>`, `From: <email of a PagerDuty user>`
(required with an account-level token) and
`Accept: application/vnd.pagerduty+json;version=2`. Each PagerDuty incident
of the alert group gets its own outbox row (notify/writeback.py).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rootward.notify.channels import DeliveryRefused
from rootward.notify.message import Notification
from rootward.notify.target_http import call, json_of
from rootward.notify.writeback import WritebackRefs, refs_of, writeback_text

ACCEPT = "application/vnd.pagerduty+json;version=2"
MAX_NOTE = 25_000  # PagerDuty's limit on a note's content


class PagerDutyNotesSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    api_token: SecretStr = Field(description="REST API key (account key with write access, or a user token)")
    from_email: str = Field(description="Email of the PagerDuty user the notes are written as (the From header)")
    base_url: str = Field(default="https://api.pagerduty.com", description="REST API base URL (EU: same host)")
    timeout_s: float = Field(default=10.0, gt=0)

    def writes_back(self, refs: WritebackRefs) -> bool:
        return bool(refs.pagerduty_incidents)


class PagerDutyNotesChannel:
    name = "pagerduty"

    def __init__(self, settings: PagerDutyNotesSettings) -> None:
        self._settings = settings

    def send(self, notification: Notification, *, idempotency_key: str) -> str:
        incident = refs_of(notification).pagerduty_incident
        if not incident:
            raise DeliveryRefused("pagerduty: the message names no PagerDuty incident")
        s = self._settings
        headers = {
            "Authorization": f"Token token={s.api_token.get_secret_value()}",
            "From": s.from_email,
            "Accept": ACCEPT,
        }
        body = {"note": {"content": writeback_text(notification)[:MAX_NOTE]}}
        url = f"{s.base_url.rstrip('/')}/incidents/{incident}/notes"
        note = json_of("pagerduty", call("pagerduty", "POST", url, timeout_s=s.timeout_s, headers=headers, json=body))
        created = note.get("note")
        return f"{incident} note {created.get('id', '') if isinstance(created, dict) else ''}".strip()
