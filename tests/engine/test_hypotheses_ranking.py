"""Hypothesis ranking (`engine/hypotheses.py`): which cause ranks first for a small incident, and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

from rootward.context.anomaly import Anomaly, ScoredSeries
from rootward.context.assemble import Context
from rootward.context.changes import ChangeItem
from rootward.context.log_signals import LogSignal
from rootward.engine.hypotheses import MAX_HYPOTHESES, MIN_HYPOTHESES, rank_hypotheses, score_entities
from tests.engine.small_incidents import ONSET_S, anomaly, change, incident, log

SHOP = {"frontend": "service", "checkout": "service", "payments-db": "database", "node-1": "host"}
SHOP_EDGES = [
    ("frontend", "checkout", "depends_on"),
    ("checkout", "payments-db", "depends_on"),
    ("checkout", "node-1", "runs_on"),
    ("payments-db", "node-1", "runs_on"),
]


def _pool_exhausted_database() -> Context:
    """payments-db runs out of connections; checkout and frontend fail and time out because of it."""
    return incident(
        kinds=SHOP,
        edges=SHOP_EDGES,
        alerting=["checkout", "frontend"],
        anomalies=[
            anomaly("payments-db", "connections", metric="active_connections", baseline=20, after=100),
            anomaly("checkout", "errors", metric="http_5xx_rate", starts_s=20),
            anomaly("checkout", "latency", metric="p99_latency_ms", starts_s=20),
            anomaly("frontend", "errors", metric="http_5xx_rate", starts_s=40),
        ],
        logs=[
            log("checkout", "timeout acquiring connection from pool for payments-db after 5000ms"),
            log("payments-db", "FATAL: remaining connection slots are reserved, too many connections"),
        ],
    )


def _bad_deploy() -> Context:
    """checkout was deployed four minutes before it started throwing; its caller sees the errors."""
    return incident(
        kinds=SHOP,
        edges=SHOP_EDGES,
        alerting=["checkout"],
        anomalies=[
            anomaly("checkout", "errors", metric="http_5xx_rate"),
            anomaly("frontend", "errors", metric="http_5xx_rate", starts_s=30),
        ],
        logs=[log("checkout", "TypeError: cannot read properties of undefined (reading 'total')")],
        changes=[change("checkout", minutes_before=4, change_id="deploy-checkout-v2")],
    )


def test_exhausted_database_pool_ranks_first_at_the_database_not_at_its_failing_caller() -> None:
    ranked = rank_hypotheses(_pool_exhausted_database())
    assert (ranked[0].entity, ranked[0].fault_type) == ("payments-db", "connection_pool_exhaustion")
    checkout = [h for h in ranked if h.entity == "checkout"]
    assert not checkout or checkout[0].prior < ranked[0].prior


def test_caller_whose_failures_name_an_abnormal_dependency_is_discounted_as_its_victim() -> None:
    scores = {s.entity: s for s in score_entities(_pool_exhausted_database())}
    assert scores["checkout"].victim_of == "payments-db"
    assert "its failures point at its dependency payments-db" in scores["checkout"].reasons
    assert scores["payments-db"].victim_of is None
    assert scores["payments-db"].score > scores["checkout"].score


def test_being_a_victim_of_its_dependency_costs_a_caller_most_of_its_score() -> None:
    victim = {s.entity: s for s in score_entities(_pool_exhausted_database())}["checkout"]
    on_its_own = incident(  # the same failures at checkout, naming nothing, with a healthy database
        kinds=SHOP,
        edges=SHOP_EDGES,
        alerting=["checkout", "frontend"],
        anomalies=[
            anomaly("checkout", "errors", metric="http_5xx_rate", starts_s=20),
            anomaly("checkout", "latency", metric="p99_latency_ms", starts_s=20),
            anomaly("frontend", "errors", metric="http_5xx_rate", starts_s=40),
        ],
        logs=[log("checkout", "timeout acquiring connection from pool after 5000ms")],
    )
    alone = {s.entity: s for s in score_entities(on_its_own)}["checkout"]
    assert alone.victim_of is None
    assert victim.own == alone.own  # the same evidence of its own ...
    assert victim.score < 0.5 * alone.score  # ... but it is explained by the database


def test_cause_upstream_of_every_alerting_service_explains_the_whole_abnormal_graph() -> None:
    scores = {s.entity: s for s in score_entities(_pool_exhausted_database())}
    assert scores["payments-db"].coverage > scores["frontend"].coverage
    assert scores["payments-db"].coverage > 0.9


def test_errors_right_after_a_deploy_rank_the_deploy_first_and_cite_it() -> None:
    ranked = rank_hypotheses(_bad_deploy())
    top = ranked[0]
    assert (top.entity, top.fault_type) == ("checkout", "deploy_regression")
    assert "changes.json:deploy-checkout-v2" in [e.cite for e in top.evidence]
    assert any("deploy deploy-checkout-v2 before the onset" in r for r in top.rationale)


def _alerted_right_after_a_deploy(*, deploy_minutes_before: float) -> Context:
    """cart alerts right after its deploy, snapshotted before its error series shows the rise; search wobbles."""
    return incident(
        kinds={"cart": "service", "search": "service", "127.0.0.1": "host"},
        edges=[("cart", "127.0.0.1", "runs_on"), ("search", "127.0.0.1", "runs_on")],
        alerting=["cart"],
        anomalies=[anomaly("search", "latency", metric="http_latency_p99", score=6.0, baseline=9.9, after=12.1)],
        changes=[change("cart", minutes_before=deploy_minutes_before)],
    )


def test_an_alert_right_after_its_own_deploy_names_the_deploy_before_its_series_show_the_rise() -> None:
    top = rank_hypotheses(_alerted_right_after_a_deploy(deploy_minutes_before=0.5))[0]
    assert (top.entity, top.fault_type) == ("cart", "deploy_regression")
    assert "changes.json:deploy-cart" in [e.cite for e in top.evidence]


def test_an_alert_long_after_its_own_deploy_does_not_make_the_deploy_evidence() -> None:
    scores = {s.entity: s for s in score_entities(_alerted_right_after_a_deploy(deploy_minutes_before=60))}
    assert "cart" not in scores
    assert rank_hypotheses(_alerted_right_after_a_deploy(deploy_minutes_before=60))[0].entity == "search"


def test_silent_external_api_named_by_its_callers_is_the_leading_suspect() -> None:
    ctx = incident(
        kinds={"checkout": "service", "stripe": "external"},
        edges=[("checkout", "stripe", "depends_on")],
        alerting=["checkout"],
        silent=["stripe"],
        anomalies=[anomaly("checkout", "errors", metric="http_5xx_rate")],
        logs=[log("checkout", "POST stripe /v1/charges failed: connection refused", onset_count=60)],
    )
    top = rank_hypotheses(ctx)[0]
    assert (top.entity, top.fault_type) == ("stripe", "dependency_down")


def test_ranking_returns_between_three_and_seven_hypotheses_leader_first_with_priors_summing_to_one() -> None:
    for ctx in (_pool_exhausted_database(), _bad_deploy()):
        ranked = rank_hypotheses(ctx)
        assert MIN_HYPOTHESES <= len(ranked) <= MAX_HYPOTHESES
        assert [h.id for h in ranked] == [f"H{n}" for n in range(1, len(ranked) + 1)]
        priors = [h.prior for h in ranked]
        assert priors[0] == max(priors)
        assert abs(sum(priors) - 1.0) < 0.01
        assert len({(h.entity, h.fault_type) for h in ranked}) == len(ranked)


def test_thin_evidence_is_filled_up_with_alternative_readings_of_the_same_signals() -> None:
    ctx = incident(
        kinds=SHOP,
        edges=SHOP_EDGES,
        alerting=["checkout"],
        anomalies=[anomaly("checkout", "latency", metric="p99_latency_ms")],
    )
    ranked = rank_hypotheses(ctx)
    assert len(ranked) >= MIN_HYPOTHESES
    assert ranked[0].fault_type == "network_latency"
    alternatives = [h for h in ranked if "an alternative reading of the same signals" in h.rationale]
    assert alternatives and all(h.prior < ranked[0].prior for h in alternatives)


def test_a_resource_that_moved_is_not_filled_up_with_readings_of_other_signals() -> None:
    """A disk that filled reads as a disk: "network latency at the node" would cite a disk series."""
    ctx = incident(
        kinds=SHOP,
        edges=SHOP_EDGES,
        alerting=["checkout"],
        anomalies=[anomaly("node-1", "disk", metric="disk_used_ratio")],
    )
    at_node = {h.fault_type for h in rank_hypotheses(ctx) if h.entity == "node-1"}
    assert at_node == {"disk_full"}


def test_same_incident_ranks_the_same_every_time() -> None:
    first = [asdict(h) for h in rank_hypotheses(_pool_exhausted_database())]
    again = [asdict(h) for h in rank_hypotheses(_pool_exhausted_database())]
    assert first == again


def test_with_nothing_but_alerts_each_alerting_service_is_a_low_prior_hypothesis_read_from_its_alert() -> None:
    ctx = incident(kinds=SHOP, edges=SHOP_EDGES, alerting=["checkout", "frontend"])
    ranked = rank_hypotheses(ctx)
    assert [h.entity for h in ranked] == ["checkout", "frontend"]
    assert all(h.fault_type == "deploy_regression" for h in ranked)  # HighErrorRate reads as errors
    assert all(h.rationale == ["only the alert is known about it"] and h.prior <= 0.1 for h in ranked)
    assert [e.cite for e in ranked[0].evidence] == ["alerts.json:checkout-higherrorrate"]


GATEWAY = {"gateway": "gateway", "orders": "service", "routes": "service", "stations": "service"}
GATEWAY_EDGES = [
    ("gateway", "orders", "depends_on"),
    ("gateway", "routes", "depends_on"),
    ("orders", "stations", "depends_on"),
    ("routes", "stations", "depends_on"),
]


def _under_the_gateway(logs: list[LogSignal], changes: Sequence[ChangeItem] = ()) -> Context:
    """An incident of GATEWAY alerting at its front, whose error rate rose, with these failure logs."""
    return incident(
        kinds=GATEWAY,
        edges=GATEWAY_EDGES,
        alerting=["gateway"],
        anomalies=[anomaly("gateway", "errors", metric="error_rate", score=300.0)],
        logs=logs,
        changes=changes,
    )


def _code_fault_under_a_gateway(*, gateway_deployed: bool = False) -> Context:
    """stations throws; its callers and the gateway in front of them log generic failures naming nobody."""
    return _under_the_gateway(
        [
            log("stations", "RuntimeException: unexpected value in query <*>", onset_count=20),
            log("orders", "request failed with status 500", onset_count=30),
            log("routes", "request failed with status 500", onset_count=30),
            log("gateway", "upstream returned 500 for <*>", onset_count=80),
        ],
        [change("gateway", minutes_before=3)] if gateway_deployed else [],
    )


def test_a_quiet_callee_whose_failures_the_loud_gateway_passes_on_ranks_first() -> None:
    ranked = rank_hypotheses(_code_fault_under_a_gateway())
    assert ranked[0].entity == "stations"
    scores = {s.entity: s for s in score_entities(_code_fault_under_a_gateway())}
    assert scores["gateway"].victim_of == "orders"
    assert scores["orders"].victim_of == "stations"


def test_callers_answered_503_by_a_throwing_callee_they_do_not_name_are_its_victims() -> None:
    """A 503 is what came back from a call, not a mechanism of the caller's own."""
    ctx = _under_the_gateway(
        [
            log("stations", "Traceback (most recent call last): KeyError: 'zone' in handlers.py", onset_count=40),
            log("orders", "HttpServerErrorException$ServiceUnavailable: 503 Service Unavailable", onset_count=60),
            log("routes", "HttpServerErrorException$ServiceUnavailable: 503 Service Unavailable", onset_count=60),
            log("gateway", "call to upstream failed: status 503 Service Unavailable", onset_count=80),
        ]
    )
    scores = {s.entity: s for s in score_entities(ctx)}
    assert scores["orders"].victim_of == "stations"
    assert scores["routes"].victim_of == "stations"
    assert (rank_hypotheses(ctx)[0].entity, rank_hypotheses(ctx)[0].fault_type) == ("stations", "deploy_regression")


def test_a_callee_whose_failures_were_first_seen_as_the_log_source_came_back_may_have_failed_first() -> None:
    """Logs kept only around the alert: a callee's panics first seen as the source resumed began by then,
    not then. Its caller's latency rose two minutes before them, read from metrics with no hole."""
    from datetime import timedelta

    from tests.engine.small_incidents import ONSET

    seen = ONSET + timedelta(minutes=2)
    panics = log("stations", "panic recovered in handler: nil pointer dereference", onset_count=30)

    def orders_victim_of(began_unseen: object) -> str | None:
        shown = panics.model_copy(update={"first_ts": seen, "began_unseen": began_unseen})
        ctx = incident(
            kinds=GATEWAY,
            edges=GATEWAY_EDGES,
            alerting=["gateway"],
            anomalies=[anomaly("orders", "latency", metric="latency_p99_ms", score=40.0)],
            logs=[shown, log("orders", "call to upstream failed: status 503 Service Unavailable", onset_count=30)],
        )
        return {s.entity: s for s in score_entities(ctx)}["orders"].victim_of

    assert orders_victim_of(ONSET - timedelta(minutes=5)) == "stations"  # a hole from before the caller's rise
    assert orders_victim_of(None) is None  # seen beginning two minutes after the caller's: not what it passes on


def test_a_caller_refused_by_a_callee_that_shows_nothing_keeps_its_own_failures() -> None:
    """With no failing dependency to pass the refusals on from, the caller's own lines are its own evidence."""
    ctx = _under_the_gateway([log("orders", "connect: connection refused", onset_count=60)])
    scores = {s.entity: s for s in score_entities(ctx)}
    assert scores["orders"].victim_of is None


def _timeouts_above_a_callee(*, callee_slow: bool) -> Context:
    """orders' calls time out; stations, which it calls, got slow a minute earlier (or did not)."""
    slow = [anomaly("stations", "latency", metric="latency_p99_ms", score=30.0)] if callee_slow else []
    return incident(
        kinds=GATEWAY,
        edges=GATEWAY_EDGES,
        alerting=["gateway"],
        anomalies=[
            *slow,
            anomaly("orders", "latency", metric="latency_p99_ms", score=40.0, starts_s=60),
            anomaly("gateway", "latency", metric="latency_p99_ms", score=40.0, starts_s=60),
        ],
        logs=[
            log(
                "orders",
                'ResourceAccessException: I/O error on POST request for "<URL>": Read timed out',
                onset_count=90,
            )
        ],
    )


def test_a_caller_whose_calls_time_out_passes_on_a_dependency_that_got_slow_first() -> None:
    scores = {s.entity: s for s in score_entities(_timeouts_above_a_callee(callee_slow=True))}
    assert scores["orders"].victim_of == "stations"
    assert rank_hypotheses(_timeouts_above_a_callee(callee_slow=True))[0].entity == "stations"


def test_a_caller_whose_calls_time_out_keeps_them_when_no_dependency_got_slow() -> None:
    scores = {s.entity: s for s in score_entities(_timeouts_above_a_callee(callee_slow=False))}
    assert scores["orders"].victim_of is None
    assert rank_hypotheses(_timeouts_above_a_callee(callee_slow=False))[0].entity == "orders"


def test_a_gateway_deployed_just_before_its_failures_is_not_read_as_passing_them_on() -> None:
    scores = {s.entity: s for s in score_entities(_code_fault_under_a_gateway(gateway_deployed=True))}
    assert scores["gateway"].victim_of is None
    assert rank_hypotheses(_code_fault_under_a_gateway(gateway_deployed=True))[0].entity == "gateway"


def test_a_gateway_deployed_before_whose_failures_began_after_its_dependencys_is_passing_them_on() -> None:
    """A bad version fails when it rolls out; errors that start two minutes after the callee's came up the calls."""
    late = incident(
        kinds=GATEWAY,
        edges=GATEWAY_EDGES,
        alerting=["gateway"],
        anomalies=[anomaly("gateway", "errors", metric="error_rate", score=300.0, starts_s=120)],
        logs=[
            log("stations", "RuntimeException: unexpected value in query <*>", onset_count=20),
            log("orders", "request failed with status 500", onset_count=30),
            log("routes", "request failed with status 500", onset_count=30),
        ],
        changes=[change("gateway", minutes_before=3)],
    )
    scores = {s.entity: s for s in score_entities(late)}
    assert scores["gateway"].victim_of == "orders"
    assert rank_hypotheses(late)[0].entity == "stations"


def _timeouts_in(
    services: list[str],
    edges: list[tuple[str, str, str]],
    kinds: dict[str, str],
    silent: list[str],
    anomalies: Sequence[Anomaly] = (),
) -> Context:
    """Each of `services` logs slow, timed-out requests that name nothing."""
    return incident(
        anomalies=anomalies,
        kinds=kinds,
        edges=edges,
        alerting=["frontend"],
        logs=[log(s, "request timed out after 5000ms") for s in services]
        + [log(s, "slow request: handler took 4200ms", severity="warning") for s in services],
        silent=silent,
    )


def test_services_on_one_node_all_timing_out_point_at_the_nodes_network() -> None:
    kinds = {"frontend": "service", "orders": "service", "stock": "service", "node-2": "host"}
    edges = [
        ("frontend", "orders", "depends_on"),
        ("frontend", "stock", "depends_on"),
        ("orders", "node-2", "runs_on"),
        ("stock", "node-2", "runs_on"),
    ]
    ranked = rank_hypotheses(_timeouts_in(["orders", "stock"], edges, kinds, ["node-2"]))
    assert (ranked[0].entity, ranked[0].fault_type) == ("node-2", "network_latency")


def test_two_callers_timing_out_do_not_lend_a_network_fault_to_what_they_call() -> None:
    """Callers' timeouts say the callee is slow, not that its network is: only a host shares its link."""
    kinds = {"frontend": "service", "orders": "service", "billing": "service", "stock": "service"}
    edges = [
        ("frontend", "orders", "depends_on"),
        ("frontend", "billing", "depends_on"),
        ("orders", "stock", "depends_on"),
        ("billing", "stock", "depends_on"),
    ]
    slow = [anomaly("stock", "latency", metric="p99_latency_ms")]
    scores = {s.entity: s for s in score_entities(_timeouts_in(["orders", "billing"], edges, kinds, [], slow))}
    lent = [sig.fault_type for sig in scores["stock"].signatures if "others' log templates" in " ".join(sig.reasons)]
    assert "network_latency" not in lent


def test_services_on_one_node_timing_out_on_a_callee_they_name_do_not_blame_the_node() -> None:
    """Both name the slow callee: they are its victims, and their node's link is not in question."""
    kinds = {"frontend": "service", "orders": "service", "stock": "service", "payments": "service", "node-2": "host"}
    edges = [
        ("frontend", "orders", "depends_on"),
        ("frontend", "stock", "depends_on"),
        ("orders", "payments", "depends_on"),
        ("stock", "payments", "depends_on"),
        ("orders", "node-2", "runs_on"),
        ("stock", "node-2", "runs_on"),
    ]
    ctx = incident(
        kinds=kinds,
        edges=edges,
        alerting=["frontend"],
        anomalies=[anomaly("payments", "latency", metric="p99_latency_ms")],
        logs=[log(s, "upstream payments timed out after 800ms") for s in ("orders", "stock")],
        silent=["node-2"],
    )
    ranked = rank_hypotheses(ctx)
    assert not any(h.entity == "node-2" and h.fault_type == "network_latency" for h in ranked)
    assert ranked[0].entity == "payments"


def test_a_line_saying_why_it_was_slow_lends_its_node_only_that_reason() -> None:
    """A cache slow because its CPU is throttled, and a neighbour timing out on it, share no network fault."""
    kinds = {"frontend": "service", "pricing": "service", "rates-cache": "cache", "k-3": "node"}
    edges = [
        ("frontend", "pricing", "depends_on"),
        ("pricing", "rates-cache", "depends_on"),
        ("pricing", "k-3", "runs_on"),
        ("rates-cache", "k-3", "runs_on"),
    ]
    throttled = "slow request: handler took <NUM> (threshold <NUM>) cpu_throttled_ratio=<NUM>"
    ctx = incident(
        kinds=kinds,
        edges=edges,
        alerting=["frontend"],
        logs=[
            log("rates-cache", throttled, onset_count=35, severity="warning"),
            log("pricing", "redis upstream:<NUM>: i/o timeout", onset_count=66),
        ],
        silent=["k-3"],
    )
    scores = score_entities(ctx)
    assert scores[0].entity == "rates-cache"
    assert "k-3" not in {s.entity for s in scores}


def _slow_caller_beside_a_blipping_dependency(*, caller_counts_errors: bool) -> Context:
    """The caller got much slower; its dependency's latency and errors blipped a little, a bit earlier."""
    ctx = incident(
        kinds={"api": "service", "worker": "service"},
        edges=[("api", "worker", "depends_on")],
        alerting=["api"],
        anomalies=[
            anomaly("api", "latency", metric="latency_p99_ms", score=48.0, starts_s=60, after=40.0),
            anomaly("worker", "latency", metric="latency_p99_ms", score=9.0, after=1.5),
            anomaly("worker", "errors", metric="error_rate", score=5.4),
        ],
    )
    if caller_counts_errors:  # the caller's own error series was scored and did not move
        quiet = ScoredSeries(
            service="api", metric="error_rate", family="errors", score=0.4, signed=0.4,
            baseline=0.01, after=0.01, peak=0.012, onset=ONSET_S,
        )  # fmt: skip
        ctx = ctx.model_copy(update={"series": [quiet]})
    return ctx


def test_a_caller_that_counts_its_errors_and_saw_none_passes_on_no_failure() -> None:
    ctx = _slow_caller_beside_a_blipping_dependency(caller_counts_errors=True)
    assert {s.entity: s for s in score_entities(ctx)}["api"].victim_of is None
    assert rank_hypotheses(ctx)[0].entity == "api"


def test_a_caller_that_cannot_count_its_errors_may_still_be_passing_a_failure_on() -> None:
    scores = {
        s.entity: s for s in score_entities(_slow_caller_beside_a_blipping_dependency(caller_counts_errors=False))
    }
    assert scores["api"].victim_of == "worker"


def test_services_that_all_fail_to_resolve_names_are_the_resolvers_victims() -> None:
    # Each client logs the names it could not resolve (other services), not the resolver: still its failure.
    ctx = incident(
        kinds={"gateway": "service", "auth": "service", "accounts": "service", "auth-db": "database", "dns": "dns"},
        edges=[
            ("gateway", "auth", "depends_on"),
            ("gateway", "accounts", "depends_on"),
            ("accounts", "auth", "depends_on"),
            ("auth", "auth-db", "depends_on"),
            *((s, "dns", "depends_on") for s in ("gateway", "auth", "accounts")),
        ],
        alerting=["gateway", "auth", "accounts"],
        anomalies=[anomaly(s, "errors", metric="error_rate", starts_s=30) for s in ("gateway", "auth", "accounts")],
        logs=[
            log("auth", "Error: getaddrinfo EAI_AGAIN auth-db (dns 10.96.0.10:53)"),
            log("accounts", "java.net.UnknownHostException: auth: Temporary failure in name resolution"),
            log("gateway", "dial tcp: lookup accounts on 10.96.0.10:53: server misbehaving"),
        ],
    )
    scores = score_entities(ctx)
    assert scores[0].entity == "dns"
    auth = next(s for s in scores if s.entity == "auth")
    assert auth.victim_of == "dns"
