"""Microsoft Teams through an incoming webhook: the three-layer message as an Adaptive Card.

The webhook is a Workflows (Power Automate) "Send webhook alerts to a
channel" URL or a legacy Office 365 connector URL; both take
`{"type": "message", "attachments": [{"contentType":
"application/vnd.microsoft.card.adaptive", "content": <AdaptiveCard 1.4>}]}`.
The card leads with the headline, then the summary, the raw facts (the
hypotheses among them), the evidence and the actions. A remediation awaiting
approval gets Approve and Reject `Action.OpenUrl` buttons: signed, expiring,
single-use links back to rootward (notify/approval_links.py), since a webhook
card cannot tell rootward who clicked. Without `link_secret` the card links
to the console, where approvers decide.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rootward.notify.approval_links import LinkDecision, link_url, mint
from rootward.notify.message import Notification
from rootward.notify.target_http import call

CARD_VERSION = "1.4"
CARD_TYPE = "application/vnd.microsoft.card.adaptive"
CARD_SCHEMA = "http://adaptivecards.io/schemas/adaptive-card.json"


class TeamsSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    webhook_url: SecretStr = Field(description="Workflows (Power Automate) or Office 365 connector webhook URL")
    link_secret: SecretStr | None = Field(
        default=None,
        description="HMAC key of the Approve/Reject links; without it the card links to the console instead",
    )
    link_ttl_s: int = Field(default=1800, gt=0, le=86_400, description="How long an Approve/Reject link works")
    timeout_s: float = Field(default=10.0, gt=0)


def _text(text: str, **style: Any) -> dict[str, Any]:
    return {"type": "TextBlock", "text": text, "wrap": True, **style}


def _list(title: str, items: tuple[str, ...]) -> list[dict[str, Any]]:
    if not items:
        return []
    return [_text(title, weight="Bolder", spacing="Medium"), _text("\n".join(f"- {i}" for i in items))]


def card_body(n: Notification) -> list[dict[str, Any]]:
    body = [_text(f"[{n.tier}{' ' + n.severity if n.severity else ''}] {n.title}", size="Medium", weight="Bolder")]
    if n.headline is not None:
        first, *rest = n.headline.lines()
        body.append(_text(first, weight="Bolder", color="Attention" if n.headline.tone == "failed" else "Default"))
        body += [_text(line, isSubtle=True, spacing="None") for line in rest]
    body.append(_text(n.summary, spacing="Medium"))
    if n.summary_source != "template":
        body.append(_text(f"summary by {n.summary_source}", isSubtle=True, size="Small", spacing="None"))
    body += _list("Raw facts", n.facts)
    body += _list("Evidence", n.evidence)
    body += _list("Safe actions executed", n.executed_actions)
    body += _list("Awaiting approval", n.suggested_actions)
    body.append(_text(f"investigation {n.investigation_id}", isSubtle=True, size="Small", spacing="Medium"))
    return body


def adaptive_card(n: Notification, links: dict[LinkDecision, str] | None = None) -> dict[str, Any]:
    """The webhook payload: one Adaptive Card with the message and its buttons."""
    actions: list[dict[str, Any]] = []
    if links:
        actions.append({"type": "Action.OpenUrl", "title": "Approve", "url": links["approve"], "style": "positive"})
        actions.append({"type": "Action.OpenUrl", "title": "Reject", "url": links["reject"], "style": "destructive"})
    if n.console_url:
        actions.append({"type": "Action.OpenUrl", "title": "Open in console", "url": n.console_url})
    content: dict[str, Any] = {
        "$schema": CARD_SCHEMA,
        "type": "AdaptiveCard",
        "version": CARD_VERSION,
        "msteams": {"width": "Full"},
        "body": card_body(n),
    }
    if actions:
        content["actions"] = actions
    return {"type": "message", "attachments": [{"contentType": CARD_TYPE, "contentUrl": None, "content": content}]}


class TeamsChannel:
    name = "teams"

    def __init__(self, settings: TeamsSettings, console_url: str) -> None:
        self._settings = settings
        self._console_url = console_url

    def approval_links(self, n: Notification, now: float) -> dict[LinkDecision, str] | None:
        """Fresh signed links for the message's approval request (None when it has none or links are off)."""
        approval_id = n.extra.get("approval_id")
        secret = self._settings.link_secret
        if not approval_id or secret is None or not self._console_url:
            return None
        ttl = self._settings.link_ttl_s
        decisions: tuple[LinkDecision, ...] = ("approve", "reject")
        return {
            d: link_url(
                self._console_url,
                mint(secret.get_secret_value(), str(approval_id), d, channel=self.name, now=now, ttl_s=ttl),
            )
            for d in decisions
        }

    def send(self, notification: Notification, *, idempotency_key: str) -> str:
        payload = adaptive_card(notification, self.approval_links(notification, time.time()))
        s = self._settings
        response = call("teams", "POST", s.webhook_url.get_secret_value(), timeout_s=s.timeout_s, json=payload)
        headers = response.headers
        return headers.get("x-ms-request-id") or headers.get("request-id") or str(response.status_code)
