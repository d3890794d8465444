"""A CPU, lock or memory rise minutes after the entity's own deploy reads as that deploy first.

An N+1 query shows as CPU saturation and slow queries at the service that
shipped it; the deploy, not the CPU, is what to roll back. The mechanism stays
the second reading. Without the deploy, or with a traffic surge that explains
the load, or with the deploy long before, the mechanism leads as before.
"""

from __future__ import annotations

from rootward.engine.signals import EntityProfile
from rootward.engine.signatures import classify
from tests.engine.small_incidents import ONSET_S, anomaly, change, log


def _costlier(changes: list, traffic: list | None = None) -> EntityProfile:
    return EntityProfile(
        "statements",
        "service",
        True,
        symptoms=[anomaly("statements", "latency", metric="latency_p99_ms")],
        resources=[anomaly("statements", "cpu", metric="cpu_usage", score=60.0)],
        own_logs=[log("statements", "slow query: SELECT * FROM lines WHERE statement_id = 7 took 812 ms")],
        traffic=traffic or [],
        changes=changes,
    )


def _faults(profile: EntityProfile) -> list[str]:
    return [s.fault_type for s in classify(profile, onset=ONSET_S, changes_recorded=True)]


def test_cpu_rise_sixteen_minutes_after_its_own_deploy_reads_as_the_deploy_then_the_cpu() -> None:
    deploy = change("statements", minutes_before=16, change_id="deploy-2954")
    top, second = classify(_costlier([deploy]), onset=ONSET_S, changes_recorded=True)[:2]
    assert top.fault_type == "deploy_regression"
    assert deploy.evidence in top.evidence
    assert any("after its own deploy" in r for r in top.reasons)
    assert second.fault_type in ("cpu_saturation", "db_lock_contention")


def test_without_a_deploy_of_it_the_cpu_leads() -> None:
    # The change history holds deploys (of others), none of this service.
    assert _faults(_costlier([]))[0] in ("cpu_saturation", "db_lock_contention")


def test_a_deploy_hours_before_does_not_take_the_lead() -> None:
    assert _faults(_costlier([change("statements", minutes_before=90)]))[0] != "deploy_regression"


def test_a_traffic_surge_explains_the_load_instead() -> None:
    surge = anomaly("statements", "traffic", metric="request_rate", after=3.0, baseline=1.0)
    faults = _faults(_costlier([change("statements", minutes_before=25)], traffic=[surge]))
    assert faults[0] != "deploy_regression"
    assert _faults(_costlier([change("statements", minutes_before=25)]))[0] == "deploy_regression"
