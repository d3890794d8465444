"""A version first stated in the logs just after the onset may have been deployed before it.

Without a change history, a deploy is read from the first line that states a new
version (`context.log_deploys`). That line comes when the service first logs
something carrying its version, often the failure itself, a while after the
rollout. First seen within the grace after the onset, the deploy reads as at the
onset: an N+1 query's CPU rise is its cost, as for a recorded deploy. A recorded
change is dated, and one after the onset stays after it; so does a logged one
long after.
"""

from __future__ import annotations

from rootward.engine.signals import CHANGE_GRACE_AFTER_S, EntityProfile
from rootward.engine.signatures import classify, lead_of
from tests.engine.small_incidents import ONSET_S, anomaly, change, log


def _logged(minutes_before: float):
    return change("planner", minutes_before=minutes_before, change_id="log-planner-5.24.0").model_copy(
        update={"from_logs": True}
    )


def _costlier(changes: list) -> EntityProfile:
    return EntityProfile(
        "planner",
        "service",
        True,
        symptoms=[anomaly("planner", "latency", metric="latency_p99_ms")],
        resources=[anomaly("planner", "cpu", metric="cpu_usage", score=60.0)],
        own_logs=[log("planner", "slow query detected: SELECT * FROM items WHERE order_id = 7 executed 320 times")],
        changes=changes,
    )


def _top(changes: list) -> str:
    return classify(_costlier(changes), onset=ONSET_S)[0].fault_type


def test_a_version_first_logged_a_minute_after_the_onset_reads_as_deployed_at_it() -> None:
    assert lead_of(_logged(-1)) == 0
    top = classify(_costlier([_logged(-1)]), onset=ONSET_S)[0]
    assert top.fault_type == "deploy_regression"
    assert any("first logged 60 s after the onset" in r for r in top.reasons)


def test_a_recorded_deploy_after_the_onset_keeps_its_time() -> None:
    recorded = change("planner", minutes_before=-1)
    assert lead_of(recorded) == -60
    assert _top([recorded]) != "deploy_regression"


def test_a_version_first_logged_long_after_the_onset_came_after_it() -> None:
    late = _logged(-(CHANGE_GRACE_AFTER_S / 60 + 3))
    assert lead_of(late) < 0
    assert _top([late]) != "deploy_regression"


def test_a_version_logged_before_the_onset_keeps_its_time() -> None:
    assert lead_of(_logged(4)) == 240
    assert _top([_logged(4)]) == "deploy_regression"
