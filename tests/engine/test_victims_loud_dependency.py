"""A quiet service is a loud dependency's victim only when what made the dependency loud could have starved it."""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from rootward.context.log_signals import LogSignal
from rootward.engine.signals import EntityProfile
from rootward.engine.victims import victim_of_dependency
from tests.engine.small_incidents import ONSET_S, anomaly


def _victim(family: str, starts_s: int, score: float = 40.0) -> str | None:
    """`worker` (no resource, no line, no change of its own) calling `store`, whose `family` series moved."""
    g = nx.DiGraph()
    g.add_edge("worker", "store", relation="depends_on")
    moved = anomaly("store", family, score=score, starts_s=starts_s)
    profiles = {
        "worker": EntityProfile("worker", "service", True),
        "store": EntityProfile("store", "database", True, resources=[moved], onset=moved.onset),
    }
    borrowed: dict[str, list[LogSignal]] = defaultdict(list)
    return victim_of_dependency("worker", profiles["worker"], g, profiles, borrowed, ONSET_S, 0.0)


def test_a_dependency_busy_at_the_onset_makes_a_quiet_caller_its_victim() -> None:
    assert _victim("cpu", starts_s=0) == "store"


def test_a_memory_step_starves_no_one() -> None:
    """A delayed service (quiet: a delay moves no series of its own) read as the victim of a store's memory step."""
    assert _victim("memory", starts_s=0) is None
    assert _victim("memory", starts_s=-400) is None


def test_a_modest_step_long_before_the_onset_is_background() -> None:
    assert _victim("cpu", starts_s=-600, score=8.0) is None
    assert _victim("cpu", starts_s=-60, score=8.0) == "store"
