"""The `notify:` section: channels, console link and shadow mode."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from rootward.notify.matrix import MatrixSettings
from rootward.notify.slack import SlackSettings
from rootward.notify.webhook import WebhookSettings


class ShadowSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    services: list[str] = Field(default_factory=list, description="Services in shadow mode")
    teams: list[str] = Field(default_factory=list, description="Teams (alert label `team`) in shadow mode")

    def covers(self, service: str, team: str | None) -> bool:
        return service in self.services or (team is not None and team in self.teams)


class NotifySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    console_url: str = Field(default="http://127.0.0.1:8080", description="Base URL of the web console, for links")
    slack: SlackSettings | None = None
    matrix: MatrixSettings | None = None
    webhooks: list[WebhookSettings] = Field(default_factory=list)
    shadow: ShadowSettings = Field(
        default_factory=ShadowSettings,
        description="Investigations of these services/teams run and are stored, but nothing is sent "
        "and no action runs; promotion out of shadow is removing them here.",
    )
    poll_s: float = Field(default=1.0, gt=0, description="Outbox dispatcher poll interval")
