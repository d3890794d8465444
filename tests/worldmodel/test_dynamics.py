from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from rootward.worldmodel.dynamics import Dynamics, causal_power
from rootward.worldmodel.graph import EdgeClaim, WorldGraph
from rootward.worldmodel.history import IncidentRecord, ObservedAlert, ObservedSymptom
from rootward.worldmodel.timing import PROPAGATION_PRIOR

T0 = datetime(2026, 3, 1, tzinfo=UTC)
# dependent -> dependency: (true cascade probability, true delay in seconds)
TRUTH = {
    ("api-a", "db"): (0.9, 30.0),
    ("api-b", "db"): (0.2, 90.0),
    ("web", "api-a"): (0.5, 45.0),
}


def _graph() -> WorldGraph:
    graph = WorldGraph()
    for source, target in TRUTH:
        graph.add_claim(source, target, EdgeClaim("operator", "depends_on", 0.85, T0))
    return graph


def _simulate(rng: random.Random, start: datetime) -> IncidentRecord:
    """A fault at db; each edge passes it on with its true probability and delay (+-20 %)."""
    when = {"db": start}
    frontier = ["db"]
    while frontier:
        dependency = frontier.pop()
        for (dependent, target), (p, delay) in sorted(TRUTH.items()):
            if target == dependency and rng.random() < p:
                when[dependent] = when[dependency] + timedelta(seconds=delay * rng.uniform(0.8, 1.2))
                frontier.append(dependent)
    alerts = tuple(ObservedAlert(e, "HighErrorRate", t, t + timedelta(minutes=10)) for e, t in when.items())
    return IncidentRecord(root="db", fault_type="dependency_down", alerts=alerts, fault_start=start)


def test_learned_dynamics_converge_on_simulated_cascades() -> None:
    rng = random.Random(7)
    dynamics = Dynamics()
    dynamics.learn(_graph(), [_simulate(rng, T0 + timedelta(hours=i)) for i in range(600)])
    for (dependent, dependency), (p, delay) in TRUTH.items():
        learned = dynamics.edge(dependent, dependency, "depends_on")
        assert abs(learned.probability - p) < 0.06, (dependent, learned.probability, p)
        assert abs(learned.delay_p50_s - delay) < 0.1 * delay
        # The window's prior pull fades with hundreds of samples: within 5 % of the true latest delay.
        assert 1.0 * delay <= learned.delay_p95_s <= 1.05 * 1.2 * delay
        assert abs(learned.recovery_s - 600.0) < 1e-6
        assert dict(learned.alerts) == {"HighErrorRate": 1.0}


def test_unseen_edge_is_neither_impossible_nor_certain() -> None:
    dynamics = Dynamics()
    unseen = dynamics.edge("x", "y", "depends_on")
    assert 0.0 < unseen.probability < 1.0


def test_a_few_observations_move_the_estimate_but_never_to_certainty() -> None:
    graph = _graph()
    dynamics = Dynamics()
    always = [
        IncidentRecord("db", "dependency_down", (ObservedAlert("api-b", "HighErrorRate", T0),), fault_start=T0)
        for _ in range(3)
    ]
    dynamics.learn(graph, always)
    learned = dynamics.edge("api-b", "db", "depends_on").probability
    assert dynamics.edge("x", "y", "depends_on").probability < learned < 1.0
    never = dynamics.edge("api-a", "db", "depends_on").probability
    assert 0.0 < never < 0.6


def test_silent_intermediate_on_the_way_to_an_alert_counts_as_affected() -> None:
    """db fails, api-a does not alert but web does: the cascade crossed api-a anyway."""
    dynamics = Dynamics()
    record = IncidentRecord("db", "dependency_down", (ObservedAlert("web", "HighErrorRate", T0),))
    dynamics.learn(_graph(), [record])
    assert dynamics.stats[("api-a", "db")].cascades == 1
    assert dynamics.stats[("web", "api-a")].cascades == 1
    assert dynamics.stats[("api-b", "db")].cascades == 0


def test_records_round_trip_keeps_the_estimates() -> None:
    rng = random.Random(3)
    dynamics = Dynamics()
    dynamics.learn(_graph(), [_simulate(rng, T0 + timedelta(hours=i)) for i in range(20)])
    copy = Dynamics.from_records(dynamics.to_records())
    for dependent, dependency in TRUTH:
        assert copy.edge(dependent, dependency, "depends_on") == dynamics.edge(dependent, dependency, "depends_on")
    assert copy.root_alerts("dependency_down") == dynamics.root_alerts("dependency_down") != ()
    assert copy.background == dynamics.background


def test_one_delay_sample_does_not_make_a_pinpoint_window() -> None:
    graph = _graph()
    dynamics = Dynamics()
    start = T0
    alerts = (
        ObservedAlert("db", "TargetDown", start),
        ObservedAlert("api-a", "HighErrorRate", start + timedelta(seconds=90)),
    )
    dynamics.learn(graph, [IncidentRecord("db", "dependency_down", alerts, fault_start=start)])
    edge = dynamics.edge("api-a", "db", "depends_on")
    assert edge.delay_min_s < 90.0 < edge.delay_p95_s  # the next delay may well be shorter or longer
    assert edge.delay_p95_s <= PROPAGATION_PRIOR.p95_s  # ... but not looser than knowing nothing


def test_an_entity_that_alerts_whatever_fails_gets_no_credit_from_its_edges() -> None:
    """`web` needs api-a and api-b. `noisy` needs api-a too but alerts in every incident, even when
    only the unrelated `batch` fails: its cascades from api-a are no evidence, and the edge keeps the
    relation prior. `web` alerts only when api-a fails: that edge is a cause."""
    graph = WorldGraph()
    for source, target in (("web", "api-a"), ("web", "api-b"), ("noisy", "api-a")):
        graph.add_claim(source, target, EdgeClaim("operator", "depends_on", 0.85, T0))
    graph.add_entity("batch", "service")
    records = []
    for i in range(20):
        at = T0 + timedelta(hours=i)
        if i % 2:
            alerts = (ObservedAlert("web", "HighErrorRate", at), ObservedAlert("noisy", "HighErrorRate", at))
            records.append(IncidentRecord("api-a", "dependency_down", alerts, fault_start=at))
        else:
            alerts = (ObservedAlert("noisy", "HighErrorRate", at),)
            records.append(IncidentRecord("batch", "crash_loop", alerts, fault_start=at))
    dynamics = Dynamics()
    dynamics.learn(graph, records)
    assert dynamics.stats[("noisy", "api-a")].cascades == dynamics.stats[("web", "api-a")].cascades == 10
    assert dynamics.background["noisy"].affected == 10 and dynamics.background["web"].affected == 0
    cause = dynamics.edge("web", "api-a", "depends_on").probability
    coincidence = dynamics.edge("noisy", "api-a", "depends_on").probability
    _, web_evidence = causal_power(10, 10, dynamics.background["web"])
    _, noisy_evidence = causal_power(10, 10, dynamics.background["noisy"])
    assert web_evidence > 9 and noisy_evidence < 1  # noisy's cascades are what it does anyway
    assert cause > 0.9 and coincidence < cause
    assert Dynamics.from_records(dynamics.to_records()).edge("noisy", "api-a", "depends_on").probability == coincidence


def _chain() -> WorldGraph:
    """web -> api -> db, plus `batch` -> db that nobody alerts on."""
    graph = WorldGraph()
    for source, target in (("web", "api"), ("api", "db"), ("batch", "db")):
        graph.add_claim(source, target, EdgeClaim("operator", "depends_on", 0.85, T0))
    return graph


def test_a_symptom_in_telemetry_marks_an_entity_affected_and_a_watched_quiet_one_fine() -> None:
    """db fails; only web alerts. api's latency moved (a symptom), batch was watched and stayed flat."""
    record = IncidentRecord(
        "db",
        "dependency_down",
        (ObservedAlert("web", "HighErrorRate", T0 + timedelta(seconds=400)),),
        fault_start=T0,
        symptoms=(
            ObservedSymptom("api", T0 + timedelta(seconds=60), "latency_p99_ms"),
            ObservedSymptom("web", T0 + timedelta(seconds=100), "error_rate"),
        ),
        watched=frozenset({"web", "api", "batch", "db"}),
    )
    dynamics = Dynamics()
    dynamics.learn(_chain(), [record])
    assert dynamics.stats[("api", "db")].cascades == 1 and dynamics.stats[("batch", "db")].cascades == 0
    # Propagation runs first sign to first sign; detection is web's own symptom-to-alert time.
    assert dynamics.stats[("api", "db")].delays_s == [60.0]
    assert dynamics.stats[("web", "api")].delays_s == [40.0]
    assert dynamics.detection["web"] == [300.0]


def test_a_watched_entity_without_a_symptom_is_not_silently_on_the_way() -> None:
    """web alerted, api was watched and flat: the cascade did not cross api (the graph may be wrong)."""
    record = IncidentRecord(
        "db",
        "dependency_down",
        (ObservedAlert("web", "HighErrorRate", T0 + timedelta(seconds=200)),),
        fault_start=T0,
        watched=frozenset({"web", "api", "db"}),
    )
    dynamics = Dynamics()
    dynamics.learn(_chain(), [record])
    assert dynamics.stats[("api", "db")].cascades == 0
    # Without a known onset the detector's silence proves nothing: the old inference holds.
    unknown = IncidentRecord(record.root, record.fault_type, record.alerts, watched=record.watched)
    again = Dynamics()
    again.learn(_chain(), [unknown])
    assert again.stats[("api", "db")].cascades == 1


def test_predicted_alert_window_is_propagation_plus_the_entitys_own_detection_delay() -> None:
    from rootward.worldmodel.predict import predict

    records = []
    for i in range(30):
        start = T0 + timedelta(hours=i)
        records.append(
            IncidentRecord(
                "db",
                "dependency_down",
                (ObservedAlert("api", "HighErrorRate", start + timedelta(seconds=20 + 240)),),
                fault_start=start,
                symptoms=(ObservedSymptom("api", start + timedelta(seconds=20)),),
                watched=frozenset({"api", "db", "web", "batch"}),
            )
        )
    dynamics = Dynamics()
    dynamics.learn(_chain(), records)
    api = predict(_chain(), "db", fault_type="dependency_down", dynamics=dynamics).entity("api")
    assert api is not None
    assert 240.0 < api.delay_p50_s < 300.0  # about 20 s propagation plus 240 s detection
    assert api.delay_min_s <= 260.0 <= api.delay_p95_s


def test_learned_cascades_carry_their_evidence_past_a_low_confidence_edge() -> None:
    graph = WorldGraph()
    graph.add_claim("api", "db", EdgeClaim("learned", "depends_on", 0.5, T0))
    always = [
        IncidentRecord("db", "dependency_down", (ObservedAlert("api", "HighErrorRate", T0),), fault_start=T0)
        for _ in range(40)
    ]
    dynamics = Dynamics()
    dynamics.learn(graph, always)
    unseen = dynamics.edge("x", "y", "depends_on", 0.5).probability
    learned = dynamics.edge("api", "db", "depends_on", 0.5).probability
    assert unseen < 0.5 and learned > 0.9  # the prior is discounted by the confidence, 40 cascades are not


def test_the_relation_prior_follows_what_the_estates_edges_have_shown() -> None:
    rng = random.Random(11)
    dynamics = Dynamics()
    dynamics.learn(_graph(), [_simulate(rng, T0 + timedelta(hours=i)) for i in range(200)])
    # api-a->db (0.9), api-b->db (0.2), web->api-a (0.5): the pooled depends_on power is about their mean.
    assert 0.45 < dynamics.relation_prior("depends_on") < 0.6
    assert dynamics.relation_prior("runs_on") == 0.5  # nothing learned: the fixed prior
