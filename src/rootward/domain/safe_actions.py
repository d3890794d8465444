"""An L2 safe action as the risk gate decides it and the safe-action runner performs it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SafeAction:
    """One safe action: its kind (`name`, one of the registered kinds), parameters, and why."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
