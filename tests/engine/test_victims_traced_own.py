"""A service quiet everywhere but in its spans is not a victim for being quiet: a wrong answer is quiet."""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from rootward.context.log_signals import LogSignal
from rootward.engine.signals import MIN_BLAME_LINES, EntityProfile
from rootward.engine.victims import victim_of_dependency
from tests.engine.small_incidents import ONSET, anomaly, log

DEPENDENCY_ONSET = int(ONSET.timestamp()) + 5


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_edge("core", "trains", relation="depends_on")
    return g


def _profiles(trains_lines: int) -> dict[str, EntityProfile]:
    retry = log("trains", "retrying idempotent call attempt=<NUM>", onset_count=trains_lines, severity="warning")
    return {
        "core": EntityProfile("core", "service", True),  # no resource, no failure line, no symptom
        "trains": EntityProfile("trains", "service", True, own_logs=[retry], onset=DEPENDENCY_ONSET),
    }


def _victim(profiles: dict[str, EntityProfile], traced_own: bool) -> str | None:
    borrowed: dict[str, list[LogSignal]] = defaultdict(list)
    return victim_of_dependency("core", profiles["core"], _graph(), profiles, borrowed, None, 0.0, False, traced_own)


def test_nothing_to_pass_on_and_a_change_in_its_spans_is_no_victim() -> None:
    """A dependency failing since the onset once made a silent service its victim ("passes it on")."""
    assert _victim(_profiles(trains_lines=MIN_BLAME_LINES), traced_own=False) == "trains"
    assert _victim(_profiles(trains_lines=MIN_BLAME_LINES), traced_own=True) is None


def test_a_dependencys_stray_line_is_nothing_a_service_showing_nothing_passes_on() -> None:
    """One retry line: what the silent service's clients say failed at it is its own, not passed on."""
    assert _victim(_profiles(trains_lines=1), traced_own=False) is None


def test_quiet_beside_a_loud_dependency_needs_silence_in_the_spans_too() -> None:
    """A dependency loud with a resource (not failing): core is its victim only when quiet everywhere."""
    profiles = {
        "core": EntityProfile("core", "service", True),
        "trains": EntityProfile(
            "trains", "service", True, resources=[anomaly("trains", "cpu", score=8.0)], onset=DEPENDENCY_ONSET
        ),
    }
    assert _victim(profiles, traced_own=False) == "trains"
    assert _victim(profiles, traced_own=True) is None
