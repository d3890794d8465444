"""L2 safe actions: executed automatically, but only from the allowlist and within quota.

Each safe action is a handler behind a one-method protocol, so the same
runner drives Alertmanager silences, notes, flags and knowledge-base filing
without importing the layers above. What ran is returned as a typed record
that the notification lists and the audit trail keeps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal, Protocol

from rootward.actions.alertmanager import AlertmanagerClient, AlertmanagerError
from rootward.actions.settings import SAFE_ACTIONS
from rootward.domain.safe_actions import SafeAction

__all__ = ["SafeAction", "SafeActionHandler", "SafeActionResult", "SafeActionRunner", "SilenceHandler"]


@dataclass(frozen=True)
class SafeActionResult:
    action: SafeAction
    status: Literal["done", "refused", "failed"]
    detail: str

    def describe(self) -> str:
        return f"{self.action.name} ({self.status}): {self.detail}"


class SafeActionHandler(Protocol):
    def __call__(self, action: SafeAction) -> str:
        """Perform it and return what was done; raise to fail."""
        ...


class SilenceHandler:
    """`silence_alert`: a real Alertmanager silence with an expiry, never open-ended."""

    def __init__(self, client: AlertmanagerClient, default: timedelta = timedelta(hours=1)) -> None:
        self._client = client
        self._default = default

    def __call__(self, action: SafeAction) -> str:
        matchers = dict(action.params.get("matchers") or {})
        minutes = action.params.get("duration_minutes")
        duration = timedelta(minutes=float(minutes)) if minutes else self._default
        comment = action.reason or "silenced by rootward"
        silence_id = self._client.create_silence(matchers, duration, comment=comment)
        pairs = ",".join(f"{k}={v}" for k, v in sorted(matchers.items()))
        return f"silence {silence_id} on {{{pairs}}} for {duration}"


class SafeActionRunner:
    def __init__(
        self,
        handlers: Mapping[str, SafeActionHandler],
        *,
        allowlist: set[str] | frozenset[str] = frozenset(SAFE_ACTIONS),
        max_per_investigation: int = 5,
        on_result: Callable[[SafeActionResult], None] | None = None,
    ) -> None:
        self._handlers = dict(handlers)
        self._allow = set(allowlist) & set(SAFE_ACTIONS)
        self._quota = max_per_investigation
        self._on_result = on_result

    def run(self, actions: list[SafeAction]) -> list[SafeActionResult]:
        results: list[SafeActionResult] = []
        executed = 0
        for action in actions:
            if action.name not in self._allow:
                result = SafeActionResult(action, "refused", f"{action.name} is not on the safe-action allowlist")
            elif action.name not in self._handlers:
                result = SafeActionResult(action, "refused", f"{action.name} is not configured here")
            elif executed >= self._quota:
                result = SafeActionResult(action, "refused", f"quota of {self._quota} safe actions reached")
            else:
                executed += 1
                try:
                    result = SafeActionResult(action, "done", self._handlers[action.name](action))
                except (AlertmanagerError, ValueError, OSError) as exc:
                    result = SafeActionResult(action, "failed", str(exc))
            results.append(result)
            if self._on_result is not None:
                self._on_result(result)
        return results
