"""Metric change scores in the hypothesis priors (`engine/metric_evidence.py` through `engine/hypotheses.py`)."""

from __future__ import annotations

from rootward.context.assemble import Context
from rootward.context.metric_change import JointOnset, MetricChange, SeriesMove
from rootward.domain.evidence import EvidenceRef, metric_cite
from rootward.engine.hypotheses import rank_hypotheses, score_entities
from rootward.engine.metric_evidence import METRIC_CHANGE_WEIGHT, family_signatures, metric_change_strengths
from tests.engine.small_incidents import ONSET_S, anomaly, incident

SHOP = {"frontend": "service", "checkout": "service", "payments": "service", "ads": "service"}
EDGES = [
    ("frontend", "checkout", "depends_on"),
    ("frontend", "ads", "depends_on"),
    ("checkout", "payments", "depends_on"),
]


def moved(entity: str, metric: str, score: float) -> MetricChange:
    cite = metric_cite(entity, metric, ONSET_S, ONSET_S + 600)
    return MetricChange(
        entity=entity,
        metric=metric,
        score=score,
        direction="up",
        baseline=1.0,
        peak=2.0,
        onset=ONSET_S,
        series=3,
        evidence=EvidenceRef("metric", cite, f"{entity} {metric} moved {score} interquartile ranges"),
    )


def with_changes(ctx: Context, *changes: MetricChange, detected: bool = True) -> Context:
    onset = JointOnset(onset=ONSET_S, step=300, detected=detected, series=12)
    return ctx.model_copy(update={"metric_changes": list(changes), "metric_onset": onset})


def _coarse(*changes: MetricChange, detected: bool = True) -> Context:
    """5-minute samples: the per-series change points found nothing, only the metric changes speak."""
    return with_changes(incident(kinds=SHOP, edges=EDGES, alerting=["frontend"]), *changes, detected=detected)


def test_a_quiet_cause_with_a_strong_robust_change_outranks_the_loud_hub_above_it() -> None:
    # The hub's latency is loud in milliseconds but a few of its own interquartile ranges;
    # the leaf's CPU is far outside its own narrow range.
    ctx = _coarse(moved("frontend", "latency_p99_ms", 9.0), moved("ads", "cpu_usage", 80.0))
    ranked = rank_hypotheses(ctx)
    assert ranked[0].entity == "ads" and ranked[0].fault_type == "cpu_saturation"
    assert ranked[0].evidence[0].cite.startswith("metrics.csv:ads/cpu_usage@")


def test_a_resource_that_moved_with_the_latency_is_the_second_reading_of_a_coarse_incident() -> None:
    change = moved("ads", "latency_p99_ms", 300.0)
    cpu = moved("ads", "cpu_usage", 60.0)
    # Its CPU stayed at 1.4x its level: more requests in flight while something holds them, or the cause.
    rose = SeriesMove(metric="cpu_usage", score=60.0, direction="up", evidence=cpu.evidence, baseline=1.0, level=1.4)
    with_cpu = change.model_copy(update={"others": [rose]})
    ranked = rank_hypotheses(_coarse(moved("frontend", "latency_p99_ms", 9.0), with_cpu))
    assert [(h.entity, h.fault_type) for h in ranked[:2]] == [("ads", "network_latency"), ("ads", "cpu_saturation")]
    assert ranked[1].evidence[0].cite.startswith("metrics.csv:ads/cpu_usage@")
    # A resource within noise, or one that fell, is no reading of its own.
    for score, direction in ((2.0, "up"), (60.0, "down")):
        weak = SeriesMove(metric="cpu_usage", score=score, direction=direction, evidence=cpu.evidence)
        only = rank_hypotheses(_coarse(change.model_copy(update={"others": [weak]})))
        assert ("ads", "cpu_saturation") not in [(h.entity, h.fault_type) for h in only]


def test_a_cpu_doing_several_times_the_work_is_the_first_reading_of_a_coarse_latency_change() -> None:
    # A delay on the path makes a service wait, not work: a CPU that stayed at 3x its level did the work.
    change = moved("ads", "latency_p99_ms", 300.0)
    cpu = moved("ads", "cpu_usage", 60.0)
    tripled = SeriesMove(metric="cpu_usage", score=60.0, direction="up", evidence=cpu.evidence, baseline=0.2, level=0.6)
    ranked = rank_hypotheses(
        _coarse(moved("frontend", "latency_p99_ms", 9.0), change.model_copy(update={"others": [tripled]}))
    )
    assert [(h.entity, h.fault_type) for h in ranked[:2]] == [("ads", "cpu_saturation"), ("ads", "network_latency")]
    assert [e.cite.split("@")[0] for e in ranked[0].evidence] == [
        "metrics.csv:ads/cpu_usage",
        "metrics.csv:ads/latency_p99_ms",
    ]
    # A CPU that idled at nothing before has no level to be a multiple of: the latency leads.
    from_zero = tripled.model_copy(update={"baseline": 0.0})
    sigs = family_signatures(change.model_copy(update={"others": [from_zero]}))
    assert [s.fault_type for s in sigs] == ["network_latency", "cpu_saturation"]


def test_without_metric_changes_a_coarse_incident_knows_only_its_alert() -> None:
    ranked = rank_hypotheses(incident(kinds=SHOP, edges=EDGES, alerting=["frontend"]))
    assert [h.entity for h in ranked] == ["frontend"]


def test_a_latency_change_passed_on_from_an_abnormal_dependency_counts_less_than_the_dependencys_own() -> None:
    # checkout's latency moved most, but what it calls moved too: its latency is most likely passed on.
    ctx = _coarse(moved("checkout", "latency_p99_ms", 60.0), moved("payments", "cpu_usage", 40.0))
    scores = {s.entity: s.score for s in score_entities(ctx)}
    assert max(scores, key=lambda e: scores[e]) == "payments"
    strengths = metric_change_strengths(ctx, ctx.topology.graph(), set())
    assert strengths["checkout"] < strengths["payments"]


def test_a_resource_change_is_its_own_even_under_an_abnormal_dependency() -> None:
    ctx = _coarse(moved("checkout", "cpu_usage", 60.0), moved("payments", "cpu_usage", 40.0))
    strengths = metric_change_strengths(ctx, ctx.topology.graph(), set())
    assert strengths["checkout"] > strengths["payments"]


def test_the_term_is_the_entitys_change_relative_to_the_incidents_largest() -> None:
    ctx = _coarse(moved("ads", "cpu_usage", 100.0), moved("payments", "memory_bytes", 25.0))
    strengths = metric_change_strengths(ctx, ctx.topology.graph(), set())
    assert strengths["ads"] == 1.0 and 0 < strengths["payments"] < 0.25
    own = {s.entity: s.own for s in score_entities(ctx)}
    assert own["ads"] == METRIC_CHANGE_WEIGHT


def test_changes_within_noise_and_against_an_unconfirmed_onset_count_less() -> None:
    quiet = _coarse(moved("ads", "cpu_usage", 3.0))
    assert metric_change_strengths(quiet, quiet.topology.graph(), set()) == {}
    guessed = _coarse(moved("ads", "cpu_usage", 100.0), detected=False)
    assert metric_change_strengths(guessed, guessed.topology.graph(), set())["ads"] == 0.5


def test_specific_evidence_still_decides_the_fault_type_of_an_entity_that_also_moved() -> None:
    ctx = with_changes(
        incident(
            kinds=SHOP,
            edges=EDGES,
            alerting=["frontend"],
            anomalies=[anomaly("payments", "memory", metric="memory_bytes", baseline=1e9, after=3e9, shape="ramp")],
        ),
        moved("payments", "cpu_usage", 50.0),
    )
    ranked = rank_hypotheses(ctx)
    assert ranked[0].entity == "payments" and ranked[0].fault_type != "cpu_saturation"


def test_a_latency_change_the_spans_do_not_attribute_to_the_entity_counts_as_passed_on() -> None:
    # ads is a leaf: nothing below it is abnormal, but its spans were traced and show no change of its own.
    ctx = _coarse(moved("ads", "latency_p99_ms", 60.0), moved("payments", "cpu_usage", 40.0))
    graph = ctx.topology.graph()
    untraced = metric_change_strengths(ctx, graph, set())
    traced = metric_change_strengths(ctx, graph, set(), unchanged_in_traces=frozenset({"ads", "payments"}))
    assert untraced["ads"] > untraced["payments"]
    assert traced["ads"] < traced["payments"]  # a resource change stays its own
    assert traced["payments"] == untraced["payments"]


def test_a_family_reading_needs_the_way_its_fault_moves_the_series() -> None:
    """Requests that fell stopped reaching the entity (down, not a surge); latency that fell is no fault's sign."""
    fewer = moved("ads", "request_rate", 40.0).model_copy(update={"direction": "down"})
    faster = moved("ads", "latency_p99_ms", 40.0).model_copy(update={"direction": "down"})
    more = moved("ads", "request_rate", 40.0)
    assert [s.fault_type for s in family_signatures(fewer)] == ["dependency_down"]
    assert family_signatures(faster) == []
    assert [s.fault_type for s in family_signatures(more)] == ["traffic_surge"]


def test_an_entity_whose_only_move_reads_as_no_fault_is_not_the_leading_suspect() -> None:
    """A CPU that fell names no fault: the entity it belongs to gets no made-up reading of its own."""
    fell = moved("ads", "cpu_usage", 80.0).model_copy(update={"direction": "down"})
    ranked = rank_hypotheses(_coarse(moved("frontend", "latency_p99_ms", 9.0), fell))
    assert (ranked[0].entity, ranked[0].fault_type) == ("frontend", "network_latency")
