"""The `notify:` section: chat channels, write-back targets, console link and shadow mode."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rootward.notify.github import GitHubIssuesSettings
from rootward.notify.jira import JiraSettings
from rootward.notify.matrix import MatrixSettings
from rootward.notify.pagerduty_notes import PagerDutyNotesSettings
from rootward.notify.slack import SlackSettings
from rootward.notify.teams import TeamsSettings
from rootward.notify.webhook import WebhookSettings
from rootward.store.busy_timeout import SQLITE_BUSY_TIMEOUT_S

BUILT_IN_CHANNELS = frozenset({"slack", "matrix", "teams", "pagerduty", "jira", "github"})
HasTimeout = (
    SlackSettings
    | MatrixSettings
    | TeamsSettings
    | WebhookSettings
    | PagerDutyNotesSettings
    | JiraSettings
    | GitHubIssuesSettings
)


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
    teams: TeamsSettings | None = None
    webhooks: list[WebhookSettings] = Field(default_factory=list)
    pagerduty: PagerDutyNotesSettings | None = Field(
        default=None, description="Write-back: the RCA as a note on the PagerDuty incident an alert came from"
    )
    jira: JiraSettings | None = Field(default=None, description="Write-back: a comment on (or a new) Jira issue")
    github: GitHubIssuesSettings | None = Field(
        default=None, description="Write-back: a comment on (or a new) GitHub issue"
    )
    shadow: ShadowSettings = Field(
        default_factory=ShadowSettings,
        description="Investigations of these services/teams run and are stored, but nothing is sent "
        "and no action runs; promotion out of shadow is removing them here.",
    )
    poll_s: float = Field(default=1.0, gt=0, description="Outbox dispatcher poll interval")

    @model_validator(mode="after")
    def _timeouts_below_the_busy_timeout(self) -> NotifySettings:
        """A channel call may never outlast what a database writer waits for the lock (and the outbox lease).

        The outbox holds no transaction during a call; this keeps it so for any
        caller that would, and keeps every send inside the outbox's claim lease.
        """
        channels: list[tuple[str, HasTimeout | None]] = [
            ("slack", self.slack),
            ("matrix", self.matrix),
            ("teams", self.teams),
            ("pagerduty", self.pagerduty),
            ("jira", self.jira),
            ("github", self.github),
        ]
        channels += [(f"webhooks.{hook.name}", hook) for hook in self.webhooks]
        too_slow = [
            f"notify.{name}.timeout_s is {channel.timeout_s:g}"
            for name, channel in channels
            if channel is not None and channel.timeout_s >= SQLITE_BUSY_TIMEOUT_S
        ]
        if too_slow:
            raise ValueError(
                f"{'; '.join(too_slow)}: a channel timeout must be below the database busy timeout "
                f"({SQLITE_BUSY_TIMEOUT_S} s)"
            )
        return self

    @model_validator(mode="after")
    def _webhook_names_are_their_own(self) -> NotifySettings:
        """A webhook's name is its outbox channel: one named like a built-in channel would share its queue."""
        taken = [hook.name for hook in self.webhooks if hook.name in BUILT_IN_CHANNELS]
        if taken:
            raise ValueError(f"notify.webhooks: the name(s) {', '.join(taken)} belong to built-in channels")
        return self

    def chat_channels(self) -> list[str]:
        """Where messages for people go (the RCA, the risk digest): every chat channel and webhook."""
        names = [name for name, cfg in (("slack", self.slack), ("matrix", self.matrix), ("teams", self.teams)) if cfg]
        return names + [w.name for w in self.webhooks]
