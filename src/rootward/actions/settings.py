"""The `actions:` section: safe-action allowlist and quotas, approvals, the executor."""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, ConfigDict, Field

from rootward.actions.settings_models import AlertmanagerSettings, AwxSettings, KubernetesExecSettings

# The safe actions of actions/safe.py, listed here so loading settings imports no backend.
SAFE_ACTIONS = ("retry_task", "silence_alert", "flag_for_human_review", "route_to_km", "query_km", "annotate")


class ExecutorSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    allowlist: list[str] = Field(
        default_factory=list, description="Verbs this executor may run (empty: none; opt in explicitly)"
    )
    kubernetes: KubernetesExecSettings | None = None
    awx: AwxSettings | None = None
    poll_s: float = Field(default=1.0, gt=0)

    def runnable_verbs(self) -> frozenset[str]:
        """Verbs an approved proposal would actually be run for: allowlisted and with a backend to run them."""
        verbs: set[str] = set()
        if self.kubernetes is not None:
            verbs |= set(self.allowlist)
        if self.awx is not None:
            verbs |= set(self.allowlist) & set(self.awx.templates)
        return frozenset(verbs)


class ActionsSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    safe_allowlist: list[str] = Field(
        default_factory=lambda: [
            "silence_alert",
            "flag_for_human_review",
            "annotate",
            "query_km",
            "route_to_km",
            "retry_task",
        ],
        description=f"L2 safe actions run automatically; choose from {', '.join(SAFE_ACTIONS)}",
    )
    safe_quota: int = Field(default=5, ge=0, description="Safe actions per investigation")
    alertmanager: AlertmanagerSettings | None = None
    approval_ttl: timedelta = Field(default=timedelta(minutes=30), description="Approval requests expire after this")
    executor: ExecutorSettings = Field(default_factory=ExecutorSettings)
