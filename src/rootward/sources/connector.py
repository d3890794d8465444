"""How a live connector registers itself: one `Connector` entry per `sources/<name>.py`.

An entry says everything the rest of rootward needs to know about a
connector: the config section it owns (`name`), the pydantic model that
validates and documents that section, which of the source protocols it
answers, and how to build it from its settings. `settings.py` adds one
optional section per entry and `sources/live.py` builds the configured ones,
both by iterating `sources/settings.CONNECTORS`, so a new connector is one
module plus one line in that table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from rootward.sources.resilience import ConnectorSettings

Provides = Literal["logs", "metrics", "changes", "topology", "traces"]
S = TypeVar("S", bound=ConnectorSettings)


@dataclass(frozen=True)
class Connector(Generic[S]):
    """One live connector: its config section, settings model, what it provides, and its builder."""

    name: str
    settings: type[S]
    description: str
    provides: frozenset[Provides]
    build: Callable[[S], object]
    active: Callable[[S], bool] = lambda _settings: True  # e.g. GitHub with no repositories asks nothing

    def source(self, settings: S) -> object | None:
        """The built source, or None when the section is set but asks for nothing."""
        return self.build(settings) if self.active(settings) else None
