"""A dependency is failing now only with a failure line since the onset: one that stopped before was another event."""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from rootward.context.log_signals import LogSignal
from rootward.engine.signals import EntityProfile
from rootward.engine.victims import victim_of_dependency
from tests.engine.small_incidents import ONSET_S, anomaly, log


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


def _core_with_errors(dependency_lines: int, *, says: str, trains_traffic_down: bool = False) -> str | None:
    """core's error series rose and it raises 137 times; trains logged `dependency_lines` retries since the onset."""
    raised = log("core", says, onset_count=137)
    errors = anomaly("core", "errors", metric="error_rate", score=400, starts_s=10)
    retry = log("trains", "retrying idempotent call attempt=<NUM>", onset_count=dependency_lines, severity="warning")
    served = anomaly("trains", "traffic", metric="request_rate", direction="down", starts_s=0, after=0.2)
    profiles = {
        "core": EntityProfile("core", "service", True, symptoms=[errors], own_logs=[raised], onset=ONSET_S + 10),
        "trains": EntityProfile(
            "trains",
            "service",
            True,
            own_logs=[retry] if dependency_lines else [],
            traffic=[served] if trains_traffic_down else [],
            onset=ONSET_S,
        ),
    }
    g = nx.DiGraph()
    g.add_edge("core", "trains", relation="depends_on")
    borrowed: dict[str, list[LogSignal]] = defaultdict(list)
    return victim_of_dependency("core", profiles["core"], g, profiles, borrowed, ONSET_S, 0.0)


TRACEBACK = "Traceback (most recent call last): KeyError: 'zone' in core/handlers.py"


def test_a_retry_line_or_two_does_not_account_for_an_error_series_rising_at_the_caller() -> None:
    assert _core_with_errors(1, says=TRACEBACK) is None
    assert _core_with_errors(3, says=TRACEBACK) == "trains"  # failing over and over: it may well


def test_a_callee_that_serves_fewer_requests_is_the_one_its_callers_say_did_not_answer() -> None:
    unavailable = "call to upstream failed: status 503 Service Unavailable"
    assert _core_with_errors(0, says=unavailable, trains_traffic_down=True) == "trains"
    assert _core_with_errors(0, says=unavailable) is None
