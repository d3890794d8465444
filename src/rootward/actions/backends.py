"""The executor's backend protocol: dry-run, read state, execute.

A backend owns the mutation of one kind of system (Kubernetes, AWX,
Alertmanager). It is only ever called by the executor, after approval, the
gate, the allowlist and the parameter guard.
"""

from __future__ import annotations

from typing import Any, Protocol

from rootward.worldmodel.prediction_gate import ProposedAction


class BackendError(Exception):
    """The system refused or failed; the message is shown in the approval's result."""


class Backend(Protocol):
    verbs: tuple[str, ...]

    def state(self, action: ProposedAction) -> dict[str, Any]:
        """What the target looks like now (recorded before and after)."""
        ...

    def dry_run(self, action: ProposedAction) -> dict[str, Any]:
        """Validate the action server-side without changing anything."""
        ...

    def execute(self, action: ProposedAction) -> dict[str, Any]: ...
