"""A dependency is failing now only with a failure line since the onset: one that stopped before was another event."""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from rootward.context.log_signals import LogSignal
from rootward.engine.signals import EntityProfile
from rootward.engine.victims import victim_of_dependency
from tests.engine.small_incidents import ONSET_S, log


def _victim(retries_since_onset: int) -> str | None:
    """core panics from the onset on; trains logged a retry twenty minutes earlier (and more since, or none)."""
    panics = log("core", "panic recovered in handler: runtime error: nil pointer dereference", onset_count=131)
    retry = log("trains", "retrying idempotent call attempt=<NUM>", onset_count=retries_since_onset, severity="warning")
    profiles = {
        "core": EntityProfile("core", "service", True, own_logs=[panics], onset=ONSET_S + 30),
        "trains": EntityProfile("trains", "service", True, own_logs=[retry], onset=ONSET_S - 1200),
    }
    g = nx.DiGraph()
    g.add_edge("core", "trains", relation="depends_on")
    borrowed: dict[str, list[LogSignal]] = defaultdict(list)
    return victim_of_dependency("core", profiles["core"], g, profiles, borrowed, ONSET_S, 0.0)


def test_a_dependency_whose_failure_lines_stopped_before_the_onset_has_nothing_to_pass_on() -> None:
    assert _victim(retries_since_onset=0) is None


def test_a_dependency_failing_since_the_onset_still_has() -> None:
    assert _victim(retries_since_onset=2) == "trains"
