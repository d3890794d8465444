"""The `router:` section (grouping window, action-ladder tier rules) and the intake connectors' sections.

The router owns its settings (STYLE: each integration owns its section); the
root `rootward.settings.Settings` only lists the section. Each intake
connector (`ingest/<name>.py`) owns its model, imported here for the
`intake.<name>` sections, where a section turns its endpoint on.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rootward.domain.alert import Severity, Tier
from rootward.ingest.cloudevents import CloudEventsSettings
from rootward.ingest.grafana import GrafanaSettings
from rootward.ingest.keep import KeepSettings
from rootward.ingest.opsgenie import OpsgenieSettings
from rootward.ingest.pagerduty import PagerDutySettings

__all__ = [
    "CloudEventsSettings",
    "GrafanaSettings",
    "KeepSettings",
    "OpsgenieSettings",
    "PagerDutySettings",
    "RouterSettings",
    "StrictModel",
    "TierRule",
    "default_tier_rules",
]


class StrictModel(BaseModel):
    """Unknown keys are errors, so typos fail at start."""

    model_config = ConfigDict(extra="forbid")


class TierRule(StrictModel):
    """One row of the action ladder: the first rule whose conditions all hold decides the tier."""

    severity: list[Severity] | None = Field(default=None, description="Match these severities; empty: any.")
    event: list[Literal["resolved", "firing", "firing_with_context"]] | None = Field(
        default=None,
        description="`resolved`; `firing_with_context` (a trace or log excerpt in the annotations); "
        "`firing` (without). Empty: any.",
    )
    in_l2_list: bool | None = Field(
        default=None, description="True: only alertnames in `router.l2_alertnames`; false: only others."
    )
    tier: Tier
    human: bool = Field(default=False, description="Flag the group for a human at once (pages).")
    reason: str = Field(default="", description="Stored with the routing decision.")


def default_tier_rules() -> list[TierRule]:
    """The seed ADR "Agent Action Ladder" as rules over severity × event type."""
    return [
        TierRule(event=["resolved"], tier=Tier.L0, reason="resolved alerts get a template notice only"),
        TierRule(severity=[Severity.P3], tier=Tier.L0, reason="info alerts get a template notice only"),
        TierRule(severity=[Severity.P0], tier=Tier.L2, human=True, reason="page: investigate and flag a human"),
        TierRule(
            severity=[Severity.P1],
            in_l2_list=True,
            tier=Tier.L2,
            reason="critical alert on the L2 list: investigate with safe actions",
        ),
        TierRule(severity=[Severity.P1], tier=Tier.L1, reason="critical alert: summarise"),
        TierRule(
            severity=[Severity.P2],
            event=["firing_with_context"],
            tier=Tier.L1,
            reason="warning with a trace or log excerpt: summarise",
        ),
        TierRule(severity=[Severity.P2], tier=Tier.L0, reason="warning without context: template notice only"),
    ]


class RouterSettings(StrictModel):
    group_window: timedelta = Field(
        default=timedelta(minutes=5),
        description="An alert joins the open group of its service when that group saw an alert within "
        "this window (seconds, or ISO 8601 like PT5M).",
    )
    group_by: Literal["service", "topology"] = Field(
        default="topology",
        description="`topology`: an alert also joins the open group of a service linked to its own in the merged "
        "topology (depends_on, either way, within `link_hops`), so one cascade is one incident; with no topology "
        "known this is `service`. `service`: only alerts of the same service share a group.",
    )
    link_hops: int = Field(default=2, ge=1, le=5, description="How many depends_on edges apart services are linked.")
    refire_quiet_period: timedelta = Field(
        default=timedelta(minutes=5),
        description="An alert that fires again less than this after it resolved rejoins its group (a flap, no new "
        "investigation); later, it is a new occurrence with a new group.",
    )
    l2_alertnames: list[str] = Field(
        default_factory=lambda: [
            "ServiceDown",
            "TargetDown",
            "HighErrorRate",
            "ErrorRateHigh",
            "HighLatency",
            "LatencyHigh",
            "PodCrashLooping",
            "KubePodCrashLooping",
            "DatabaseConnectionsExhausted",
            "ConnectionPoolExhausted",
            "OutOfMemory",
            "DiskFull",
        ],
        description="Critical (P1) alerts with these names are investigated at L2.",
    )
    context_annotations: list[str] = Field(
        default_factory=lambda: ["trace", "trace_id", "traceid", "log", "logs", "log_excerpt", "stacktrace"],
        description="Annotation keys (case-insensitive, also as prefixes) that carry a trace or log excerpt.",
    )
    tiers: list[TierRule] = Field(
        default_factory=default_tier_rules,
        description="Ordered tier rules; the first match wins. No match: L0.",
    )
