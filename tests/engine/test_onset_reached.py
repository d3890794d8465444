"""A cause's own change is late only against what it can reach (`hypotheses._onset_reached`)."""

from __future__ import annotations

from rootward.engine.hypotheses import score_entities
from tests.engine.small_incidents import anomaly, incident

KINDS = {"web": "service", "routes": "service", "routes-db": "database", "orders-db": "database"}
EDGES = [("web", "routes", "depends_on"), ("routes", "routes-db", "depends_on"), ("web", "orders-db", "depends_on")]


def _db_reading(first_step_at: str) -> tuple[str, list[str]]:
    """routes-db's CPU stepped 5 min after the incident's onset; its callers slowed after it.

    The incident's onset is a latency step at `first_step_at`, 5 min before the CPU rose.
    """
    anomalies = [
        anomaly(first_step_at, "latency", metric="latency_p99_ms", baseline=20, after=45, score=25.0),
        anomaly("routes-db", "cpu", metric="cpu_usage", baseline=0.6, after=2.0, score=30.0, starts_s=300),
        anomaly("routes", "latency", metric="latency_p99_ms", baseline=40, after=900, score=60.0, starts_s=330),
        anomaly("routes", "errors", metric="error_rate", baseline=0.004, after=0.013, score=9.0, starts_s=330),
    ]
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["web"], anomalies=anomalies)
    db = next(s for s in score_entities(ctx) if s.entity == "routes-db")
    return db.signatures[0].fault_type, [r for s in db.signatures for r in s.reasons]


def test_a_step_where_the_cause_cannot_reach_does_not_make_its_own_rise_an_aftermath() -> None:
    """orders-db's unrelated blip set the incident's onset 5 min before routes-db's CPU rose.

    Nothing routes-db serves had failed before its CPU did: the rise is the cause, not a
    consequence. Before, it was read against the blip, discounted as "after the onset", and
    the callers' errors made it a bad deploy of a database nobody deployed.
    """
    fault, reasons = _db_reading("orders-db")
    assert fault == "cpu_saturation"
    assert not any("after the onset" in r for r in reasons)


def test_a_rise_after_what_it_serves_had_already_slowed_stays_an_aftermath() -> None:
    _, reasons = _db_reading("routes")
    assert any("cpu_usage moved up (step) after the onset" in r for r in reasons)
