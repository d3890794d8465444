"""A service whose own work costs more may be saturated or running costlier new code; without a
change history to rule the second out, it stays a reading of the same evidence."""

from __future__ import annotations

from rootward.engine.signals import EntityProfile
from rootward.engine.signatures import COSTLIER_CODE, classify
from tests.engine.small_incidents import ONSET_S, anomaly, change, log

SLOW_QUERY = "slow query detected: lock wait on table <NAME> took <NUM> ms"


def _readings(profile: EntityProfile, *, changes_recorded: bool = False) -> dict[str, float]:
    return {s.fault_type: s.score for s in classify(profile, onset=ONSET_S, changes_recorded=changes_recorded)}


def _busy(kind: str = "service") -> EntityProfile:
    """CPU up and its own slow-query lines: saturation and lock contention are the named readings."""
    return EntityProfile(
        "ledger",
        kind,
        True,
        resources=[anomaly("ledger", "cpu")],
        own_logs=[log("ledger", SLOW_QUERY, onset_count=40)],
        onset=ONSET_S,
    )


def test_a_cpu_rise_keeps_a_costlier_new_version_among_three_readings_when_nothing_records_deploys() -> None:
    readings = _readings(_busy())
    top3 = sorted(readings, key=lambda f: -readings[f])[:3]
    assert "deploy_regression" in top3, readings
    assert readings["deploy_regression"] < readings["cpu_saturation"]  # a reading beside saturation, not above it
    assert readings["deploy_regression"] >= readings["cpu_saturation"] * COSTLIER_CODE - 1e-9


def test_a_change_history_without_its_deploy_or_an_infrastructure_kind_rules_it_out() -> None:
    assert "deploy_regression" not in _readings(_busy(), changes_recorded=True)
    assert "deploy_regression" not in _readings(_busy("host"))


def test_a_cpu_named_only_by_an_alert_is_no_measured_cost() -> None:
    named = EntityProfile("ledger-db", "database", True, onset=ONSET_S)
    ref = anomaly("ledger-db", "latency").evidence
    readings = {s.fault_type for s in classify(named, onset=ONSET_S, alerts=[("PostgresHighCPU", ref)])}
    assert readings == {"cpu_saturation"}


def test_a_recorded_deploy_reads_as_before() -> None:
    deployed = _busy()
    deployed.changes = [change("ledger", minutes_before=5)]
    readings = _readings(deployed, changes_recorded=True)
    assert readings["deploy_regression"] > 0
