"""An unwatched dependency suspected from its callers' unexplained symptoms (`engine/silent_dependency.py`)."""

from __future__ import annotations

from rootward.context.anomaly import ScoredSeries
from rootward.engine.hypotheses import rank_hypotheses, score_entities
from rootward.engine.signals import entity_profiles
from rootward.engine.victims import waits_on_a_vendor
from tests.engine.small_incidents import ONSET_S, anomaly, change, incident, log

KINDS = {"web": "service", "notifier": "service", "queue-db": "database", "sms-vendor": "external"}
EDGES = [
    ("web", "notifier", "depends_on"),
    ("notifier", "queue-db", "depends_on"),
    ("notifier", "sms-vendor", "depends_on"),
]


def _slow_notifier(*, own_cpu: bool = False, logs: bool = False):  # type: ignore[no-untyped-def]
    """notifier's latency rose; the SMS vendor it calls exports nothing; queue-db is watched and flat."""
    anomalies = [anomaly("notifier", "latency", metric="latency_p99_ms", baseline=40, after=900)]
    if own_cpu:
        anomalies.append(anomaly("notifier", "cpu", metric="cpu_usage", baseline=0.2, after=0.98))
    return incident(
        kinds=KINDS,
        edges=EDGES,
        alerting=["notifier"],
        anomalies=anomalies,
        logs=[log("notifier", "worker pool stalled: job took 30000ms")] if logs else [],
        silent=["sms-vendor"],
    )


def test_callers_unexplained_slowness_makes_the_unwatched_dependency_a_network_latency_suspect() -> None:
    ranked = rank_hypotheses(_slow_notifier())
    top3 = [(h.entity, h.fault_type) for h in ranked[:3]]
    assert ("sms-vendor", "network_latency") in top3
    h = next(h for h in ranked if h.entity == "sms-vendor")
    assert "topology.yaml:notifier->sms-vendor" in {e.cite for e in h.evidence}
    # The watched, flat dependency is not suspected: its own series say it is fine.
    assert all(x.entity != "queue-db" for x in ranked)


def test_an_unwatched_vendor_takes_its_callers_unexplained_symptoms_as_its_own() -> None:
    """A third-party API can never report anything: the caller whose own side shows no cause is its victim."""
    scores = {s.entity: s for s in score_entities(_slow_notifier())}
    assert scores["notifier"].victim_of == "sms-vendor"
    assert rank_hypotheses(_slow_notifier())[0].entity == "sms-vendor"


def test_second_hand_evidence_of_an_unwatched_store_does_not_outrank_the_caller_it_is_read_from() -> None:
    """An uninstrumented database is as often its caller's victim as its cause: it gets a share, no more."""
    ctx = incident(
        kinds={"web": "service", "notifier": "service", "queue-db": "database"},
        edges=[("web", "notifier", "depends_on"), ("notifier", "queue-db", "depends_on")],
        alerting=["notifier"],
        anomalies=[anomaly("notifier", "latency", metric="latency_p99_ms", baseline=40, after=900)],
        silent=["queue-db"],
    )
    scores = {s.entity: s for s in score_entities(ctx)}
    assert 0 < scores["queue-db"].own < scores["notifier"].own
    assert scores["notifier"].victim_of is None


def test_a_caller_with_a_cause_of_its_own_casts_no_suspicion_on_what_it_calls() -> None:
    for ctx in (_slow_notifier(own_cpu=True), _slow_notifier(logs=True)):
        assert "sms-vendor" not in {s.entity for s in score_entities(ctx)}


def test_a_caller_whose_incoming_calls_wait_outside_its_spans_is_no_vendors_victim() -> None:
    """A third party it calls cannot delay the calls made to it: that time is its own network or queue."""
    from rootward.context.trace_evidence import TraceFinding
    from rootward.domain.evidence import EvidenceRef

    def edge(kind: str, before: float, after: float, score: float) -> TraceFinding:
        return TraceFinding(
            kind=kind,  # type: ignore[arg-type]
            entity="notifier",
            caller="web",
            before=before,
            after=after,
            n_before=120,
            n_after=20,
            score=score,
            changed=abs(score) >= 4,
            evidence=EvidenceRef("trace", "traces.jsonl:web->notifier@1000-1200", ""),
        )

    waited = [edge("network", 0.8, 230.0, 150.0), edge("call_latency", 40.0, 270.0, 9.0)]
    ctx = _slow_notifier().model_copy(update={"trace_findings": waited})
    scores = {s.entity: s for s in score_entities(ctx)}
    assert scores["notifier"].victim_of is None
    assert rank_hypotheses(ctx)[0].entity == "notifier"
    # Without the spans, the vendor is still the reading (the test above).
    assert {s.entity: s for s in score_entities(_slow_notifier())}["notifier"].victim_of == "sms-vendor"


def test_a_caller_saying_only_that_its_calls_were_slow_ranks_below_the_vendor_it_waits_on() -> None:
    """`slow response from upstream`, `Read timed out`: lines about the call, not failures of its own.

    A client of an uninstrumented vendor logs its waits and raises errors when they run
    out; its own work never failed. Before, those lines were read as a cause of its own,
    and the loud caller outranked the vendor that was all of its trouble.
    """
    lines = [
        log("notifier", "slow response from upstream (<URL>): <NUM>s (p50 normally <NUM>s)", onset_count=70),
        log("notifier", "Read timed out calling <URL>", onset_count=20),
    ]
    anomalies = [
        anomaly("notifier", "latency", metric="latency_p99_ms", baseline=40, after=4000, score=200.0),
        anomaly("notifier", "errors", metric="error_rate", baseline=0.001, after=0.2, score=80.0),
    ]
    ctx = incident(
        kinds=KINDS, edges=EDGES, alerting=["notifier"], anomalies=anomalies, logs=lines, silent=["sms-vendor"]
    )
    ranked = [s.entity for s in score_entities(ctx)]
    assert ranked[0] == "sms-vendor"
    assert {s.entity: s for s in score_entities(ctx)}["notifier"].victim_of == "sms-vendor"


def test_a_retry_line_or_two_beside_the_waits_is_no_failure_of_the_callers_own() -> None:
    """A client retrying a call once or twice logs it (`retrying idempotent call`), naming nothing;
    failures of its own repeat. A mail worker logging 14 slow responses and one retry, its own work
    per call 60x, its CPU flat, ranked first over the relay it waited on."""
    waits = log("notifier", "slow response from upstream (<URL>): <NUM>s (p50 normally <NUM>s)", onset_count=14)
    slow = [anomaly("notifier", "latency", metric="latency_p99_ms", baseline=40, after=4000, score=200.0)]

    def first(retries: int) -> str:
        lines = [waits, log("notifier", "retrying idempotent call attempt=<NUM>", onset_count=retries)]
        ctx = incident(
            kinds=KINDS, edges=EDGES, alerting=["notifier"], anomalies=slow, logs=lines, silent=["sms-vendor"]
        )
        return score_entities(ctx)[0].entity

    assert first(1) == "sms-vendor"
    assert first(2) == "sms-vendor"
    assert first(3) == "notifier"  # repeated, they are its own: what it calls is no longer all of its trouble


def test_which_of_two_unseen_vendors_a_caller_waited_on_is_left_to_the_evidence() -> None:
    slow = [anomaly("notifier", "latency", metric="latency_p99_ms", baseline=40, after=4000, score=200.0)]

    def waited_on(kinds: dict[str, str], edges: list[tuple[str, str, str]], silent: list[str]) -> str | None:
        ctx = incident(kinds=kinds, edges=edges, alerting=["notifier"], anomalies=slow, silent=silent)
        profiles = entity_profiles(ctx)
        return waits_on_a_vendor("notifier", profiles["notifier"], ctx.topology.graph(), profiles, ONSET_S)

    assert waited_on(KINDS, EDGES, ["sms-vendor"]) == "sms-vendor"
    two = {**KINDS, "mail-vendor": "external"}
    assert waited_on(two, [*EDGES, ("notifier", "mail-vendor", "depends_on")], ["sms-vendor", "mail-vendor"]) is None


def test_a_vendor_named_only_by_the_host_its_caller_dialled_outranks_the_callers_earlier_rollout() -> None:
    """Callers name a third party by the host they dialled, not by the name the map gives it.

    notifier was redeployed four minutes before the onset, then logged on every call that
    its upstream at `https://sms.example.io` answered in seconds. The map says that host is
    sms-vendor's; before, the lines named no entity, the fresh rollout stood as notifier's
    own cause, and the vendor did not even make the hypotheses.
    """
    line = "slow response from upstream (https://sms.example.io): 4.46s (p50 normally 0.12s)"
    lines = [log("notifier", "slow response from upstream (<URL>): <NUM>s (p50 normally <NUM>s)", example=line)]
    anomalies = [anomaly("notifier", "latency", metric="latency_p99_ms", baseline=40, after=4000, score=200.0)]

    def ranked(aliases: dict[str, tuple[str, ...]]) -> list[str]:
        ctx = incident(
            kinds=KINDS,
            edges=EDGES,
            alerting=["notifier"],
            anomalies=anomalies,
            logs=lines,
            changes=[change("notifier", minutes_before=4)],
            silent=["sms-vendor"],
            aliases=aliases,
        )
        return [f"{h.entity}/{h.fault_type}" for h in rank_hypotheses(ctx)]

    assert ranked({"sms-vendor": ("sms.example.io",)})[0] == "sms-vendor/network_latency"
    assert ranked({"sms-vendor": ("mail.example.io",)})[0] == "notifier/deploy_regression"


def _store_behind_a_slow_caller(store_series: tuple[tuple[str, str], ...]):  # type: ignore[no-untyped-def]
    """Metrics only: notifier's latency rose with nothing of its own; queue-db reports `store_series`, all flat."""
    ctx = incident(
        kinds={"web": "service", "notifier": "service", "queue-db": "database"},
        edges=[("web", "notifier", "depends_on"), ("notifier", "queue-db", "depends_on")],
        alerting=["notifier"],
        anomalies=[anomaly("notifier", "latency", metric="latency_p99_ms", baseline=40, after=900)],
    )
    flat = [
        ScoredSeries(
            service="queue-db",
            metric=m,
            family=f,
            score=0.5,
            signed=0.5,
            baseline=1.0,
            after=1.0,
            peak=1.1,
            onset=ONSET_S,
        )
        for m, f in store_series
    ]
    return ctx.model_copy(
        update={"series": flat, "telemetry": {e: ["metrics"] for e in ("web", "notifier", "queue-db")}}
    )


def test_a_store_reporting_only_cpu_and_memory_is_suspected_from_its_callers_as_an_unwatched_one_is() -> None:
    """Its CPU and memory cannot say it was slow: a delay on its network showed in its caller alone."""
    resources = (("cpu_usage", "cpu"), ("memory_bytes", "memory"))
    ranked = rank_hypotheses(_store_behind_a_slow_caller(resources))
    assert ("queue-db", "network_latency") in [(h.entity, h.fault_type) for h in ranked]
    # One that reports its own latency, and it stayed flat, is not suspected.
    ranked = rank_hypotheses(_store_behind_a_slow_caller((*resources, ("query_latency_ms", "latency"))))
    assert all(h.entity != "queue-db" for h in ranked)


SHARED = {"web": "service", "orders": "service", "stock": "service", "cart-db": "database", "prices": "service"}
SHARED_EDGES = [
    ("web", "orders", "depends_on"),
    ("web", "stock", "depends_on"),
    ("orders", "cart-db", "depends_on"),
    ("stock", "cart-db", "depends_on"),
    ("stock", "prices", "depends_on"),
]


def _shared_store(slow: tuple[str, ...], *, prices_slow: bool = False):  # type: ignore[no-untyped-def]
    """Metrics only: the callers in `slow` slowed with nothing of their own; cart-db (both call it) reports nothing."""
    anomalies = [anomaly(c, "latency", metric="latency_p50_ms", baseline=20, after=120) for c in slow]
    anomalies.append(anomaly("web", "latency", metric="latency_p50_ms", baseline=40, after=140, score=20.0))
    if prices_slow:
        anomalies.append(anomaly("prices", "latency", metric="latency_p50_ms", baseline=10, after=110))
    return incident(kinds=SHARED, edges=SHARED_EDGES, alerting=["web"], anomalies=anomalies, silent=["cart-db"])


def test_every_caller_of_an_unwatched_store_slowed_at_once_is_the_stores_delay_not_one_at_each() -> None:
    """Two services slowing in the same minute with nothing of their own, sharing only one store: one cause.

    One caller alone reads two ways (its own network, or the store's), so it keeps its place
    above the store; two or more at once, with nothing else they call abnormal, read one way.
    """
    scores = {s.entity: s for s in score_entities(_shared_store(("orders", "stock")))}
    assert max(scores.values(), key=lambda s: s.score).entity == "cart-db"
    assert scores["orders"].victim_of == "cart-db" and scores["stock"].victim_of == "cart-db"
    assert rank_hypotheses(_shared_store(("orders", "stock")))[0].entity == "cart-db"


def test_one_slow_caller_of_a_shared_store_is_not_read_as_the_stores_victim() -> None:
    scores = {s.entity: s for s in score_entities(_shared_store(("orders",)))}
    assert scores["orders"].victim_of is None
    assert scores["orders"].score > scores["cart-db"].score


def test_callers_with_another_abnormal_dependency_are_not_read_as_the_stores_victims() -> None:
    """stock also calls prices, which slowed too: what slowed stock is for the evidence to say."""
    scores = {s.entity: s for s in score_entities(_shared_store(("orders", "stock"), prices_slow=True))}
    assert scores["orders"].victim_of != "cart-db" and scores["stock"].victim_of != "cart-db"
