"""The `router:` section: grouping window and the action-ladder tier rules.

The router owns its settings (STYLE: each integration owns its section); the
root `rootward.settings.Settings` only lists the section.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rootward.domain.alert import Severity, Tier


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
        TierRule(
            severity=[Severity.P0], tier=Tier.L2, human=True, reason="page: investigate and flag a human"
        ),
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
        TierRule(
            severity=[Severity.P2], tier=Tier.L0, reason="warning without context: template notice only"
        ),
    ]


class RouterSettings(StrictModel):
    group_window: timedelta = Field(
        default=timedelta(minutes=5),
        description="An alert joins the open group of its service when that group saw an alert within "
        "this window (seconds, or ISO 8601 like PT5M).",
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
