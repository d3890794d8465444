"""Slack through the official `slack_sdk`: incoming webhook or `chat.postMessage`.

A thread reply (`notify/threads.py`) needs the bot token: it is posted with
`thread_ts` into the channel the question came from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rootward.notify.channels import DeliveryFailed
from rootward.notify.message import Notification, plain_text, slack_blocks
from rootward.notify.threads import ThreadRef, thread_of

if TYPE_CHECKING:
    from slack_sdk import WebClient

# slack_sdk is imported where a message is sent, not at the top: every CLI command imports the settings (this
# module's SlackSettings among them), few of them talk to Slack.


class SlackSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    webhook_url: SecretStr | None = Field(default=None, description="Incoming webhook URL (simplest setup)")
    bot_token: SecretStr | None = Field(default=None, description="Bot token (xoxb-...) for chat.postMessage")
    channel: str = Field(default="", description="Channel id or name for chat.postMessage")
    api_url: str = Field(default="https://slack.com/api/", description="Slack Web API base URL")
    signing_secret: SecretStr | None = Field(
        default=None, description="Verifies interactive (approval) requests and Events API calls (thread Q&A)"
    )
    timeout_s: float = Field(default=10.0, gt=0)


class SlackChannel:
    name = "slack"

    def __init__(self, settings: SlackSettings) -> None:
        self._settings = settings
        if settings.webhook_url is None and settings.bot_token is None:
            raise ValueError("slack: set webhook_url or bot_token")

    def _client(self) -> WebClient:
        from slack_sdk import WebClient

        assert self._settings.bot_token is not None
        return WebClient(
            token=self._settings.bot_token.get_secret_value(),
            base_url=self._settings.api_url,
            timeout=int(self._settings.timeout_s),
        )

    def _reply(self, text: str, where: ThreadRef) -> str:
        if self._settings.bot_token is None:
            raise DeliveryFailed("slack: a thread reply needs notify.slack.bot_token (webhooks cannot reply)")
        from slack_sdk.errors import SlackApiError

        try:
            response = self._client().chat_postMessage(channel=where.room, thread_ts=where.root, text=text[:3900])
        except SlackApiError as exc:
            raise DeliveryFailed(f"slack: {exc.response.get('error', 'api error')}") from exc
        except OSError as exc:
            raise DeliveryFailed(f"slack: {exc}") from exc
        return str(response.get("ts", ""))

    def send(self, notification: Notification, *, idempotency_key: str) -> str:
        where = thread_of(notification)
        if where is not None:
            return self._reply(notification.summary, where)
        text = plain_text(notification)
        blocks = slack_blocks(notification)
        timeout = int(self._settings.timeout_s)
        from slack_sdk.errors import SlackApiError
        from slack_sdk.webhook import WebhookClient

        try:
            if self._settings.bot_token is not None:
                response = self._client().chat_postMessage(
                    channel=self._settings.channel, text=text[:3000], blocks=blocks
                )
                return str(response.get("ts", ""))
            assert self._settings.webhook_url is not None
            hook = WebhookClient(self._settings.webhook_url.get_secret_value(), timeout=timeout)
            result = hook.send(text=text[:3000], blocks=blocks)
        except SlackApiError as exc:
            raise DeliveryFailed(f"slack: {exc.response.get('error', 'api error')}") from exc
        except OSError as exc:
            raise DeliveryFailed(f"slack: {exc}") from exc
        if result.status_code != 200:
            raise DeliveryFailed(f"slack webhook: HTTP {result.status_code}")
        return "webhook"
