from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rootward.worldmodel.history import ObservedAlert
from rootward.worldmodel.predict import PredictedAlert, PredictedEntity, Prediction
from rootward.worldmodel.verdict import judge

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _prediction() -> Prediction:
    """restart payment: payment itself restarts at once, checkout may error within 0-300 s."""
    payment = PredictedEntity(
        "payment", "service", 1.0, 0, 0, 120, 120, ("payment",), (PredictedAlert("payment", "TargetDown", 1.0),)
    )
    checkout = PredictedEntity(
        "checkout",
        "service",
        0.3,
        0,
        60,
        300,
        900,
        ("payment", "checkout"),
        (PredictedAlert("checkout", "HighErrorRate", 0.3),),
    )
    return Prediction("payment", "action:restart", (payment, checkout), window_s=600)


def _alert(entity: str, name: str, after_s: float) -> ObservedAlert:
    return ObservedAlert(entity, name, T0 + timedelta(seconds=after_s))


def test_nothing_observed_is_a_match() -> None:
    assert judge(_prediction(), [], T0).outcome == "match"


def test_predicted_alerts_within_their_delay_are_a_match() -> None:
    observed = [_alert("payment", "TargetDown", 10), _alert("checkout", "HighErrorRate", 200)]
    verdict = judge(_prediction(), observed, T0)
    assert verdict.outcome == "match" and verdict.observed == 2


def test_unpredicted_alert_name_on_a_predicted_entity_is_partial() -> None:
    verdict = judge(_prediction(), [_alert("checkout", "DiskFull", 30)], T0)
    assert verdict.outcome == "partial"
    assert verdict.unpredicted_alerts == ("checkout/DiskFull",)


def test_predicted_alert_outside_its_delay_window_is_partial() -> None:
    verdict = judge(_prediction(), [_alert("checkout", "HighErrorRate", 500)], T0)
    assert verdict.outcome == "partial"
    assert verdict.mistimed_alerts == ("checkout/HighErrorRate@+500",)


def test_alert_on_an_unpredicted_entity_is_a_deviation() -> None:
    observed = [_alert("payment", "TargetDown", 10), _alert("catalog", "HighErrorRate", 30)]
    verdict = judge(_prediction(), observed, T0)
    assert verdict.outcome == "deviation"
    assert verdict.unpredicted_entities == ("catalog",)


def test_alerts_outside_the_prediction_window_are_ignored() -> None:
    observed = [_alert("catalog", "HighErrorRate", -60), _alert("catalog", "HighErrorRate", 601)]
    assert judge(_prediction(), observed, T0).outcome == "match"


def test_prediction_json_round_trip_keeps_the_verdict() -> None:
    observed = [_alert("checkout", "HighErrorRate", 200)]
    restored = Prediction.from_json(_prediction().to_json())
    assert judge(restored, observed, T0) == judge(_prediction(), observed, T0)
