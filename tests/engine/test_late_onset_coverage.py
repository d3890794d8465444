"""What began after the alerts had fired cannot have set them off, however well the map lets it reach them."""

from __future__ import annotations

from datetime import timedelta

from rootward.engine.hypotheses import score_entities
from tests.engine.small_incidents import FIRED_AT, anomaly, incident, log

KINDS = {"frontend": "service", "shipping": "service"}
EDGES = [("frontend", "shipping", "depends_on")]


def _ranked(shipping_starts_s: int) -> list[str]:
    """The alert fires 2 minutes after the onset, at which frontend's CPU rose; shipping's p99 moved more."""
    ctx = incident(
        kinds=KINDS,
        edges=EDGES,
        alerting=["frontend"],
        anomalies=[
            anomaly("frontend", "cpu", metric="cpu_usage", score=4.5),
            anomaly("shipping", "latency", metric="latency_p99_ms", score=8.0, starts_s=shipping_starts_s),
        ],
    )
    return [s.entity for s in score_entities(ctx)]


def test_a_dependency_that_slowed_minutes_after_the_alert_does_not_explain_it() -> None:
    """Nezha 2022-08-23 12:18: the frontend's CPU tripled at 12:19, its alert fired at 12:20, and a
    dependency's p99 rose at 12:24 (the next event); the map let the dependency explain the alert."""
    assert _ranked(shipping_starts_s=6 * 60)[0] == "frontend"


def test_a_dependency_that_slowed_before_the_alert_may_explain_it() -> None:
    assert _ranked(shipping_starts_s=0)[0] == "shipping"


def test_a_move_a_sample_or_two_after_the_alert_is_still_in_time() -> None:
    """An onset read from samples may be a step or two late: within LATE_GRACE_S of the alert it counts."""
    assert _ranked(shipping_starts_s=2 * 60 + 90)[0] == "shipping"


def test_a_dependency_whose_first_sign_is_a_log_line_after_the_alert_keeps_its_reach() -> None:
    """A line may be the end of what began unseen earlier (the kill at the end of a leak): series only."""
    killed = log("shipping", "container shipping terminated: reason=OOMKilled")
    killed = killed.model_copy(update={"first_ts": FIRED_AT + timedelta(minutes=4)})
    ctx = incident(
        kinds=KINDS,
        edges=EDGES,
        alerting=["frontend"],
        anomalies=[anomaly("frontend", "cpu", metric="cpu_usage", score=4.5)],
        logs=[killed],
    )
    shipping = next(s for s in score_entities(ctx) if s.entity == "shipping")
    assert shipping.coverage > 0.9
