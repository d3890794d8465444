"""Evidence profiles (`engine/signals.py`): what counts as a signal on each entity, and who is blamed."""

from __future__ import annotations

from rootward.engine.signals import EntityProfile, entity_profiles, is_bad_direction, mentions, strength
from tests.engine.small_incidents import anomaly, change, incident, log

SHOP = {"frontend": "service", "checkout": "service", "payments-db": "database", "node-1": "host"}
SHOP_EDGES = [
    ("frontend", "checkout", "depends_on"),
    ("checkout", "payments-db", "depends_on"),
    ("checkout", "node-1", "runs_on"),
]


def test_strength_is_zero_below_the_threshold_and_grows_to_one_on_a_log_scale() -> None:
    assert strength(3.9) == 0.0
    assert 0.15 < strength(4.0) < 0.25
    assert strength(4.0) < strength(20.0) < strength(60.0) < 1.0
    assert strength(1000.0) == 1.0


def test_falling_success_rate_is_harmful_while_falling_latency_is_not() -> None:
    assert is_bad_direction(anomaly("checkout", "errors", metric="success_rate", direction="down"))
    assert not is_bad_direction(anomaly("checkout", "errors", metric="success_rate", direction="up"))
    assert is_bad_direction(anomaly("checkout", "errors", metric="http_5xx_rate", direction="up"))
    assert not is_bad_direction(anomaly("checkout", "latency", direction="down"))
    assert is_bad_direction(anomaly("checkout", "silence", direction="down"))


def test_repeated_caller_failure_naming_an_entity_blames_it() -> None:
    refused = log("checkout", "connect to payments-db:5432 failed: connection refused", onset_count=12)
    assert mentions(refused, "payments-db")
    assert not mentions(refused, "frontend")


def test_one_or_two_lines_naming_an_entity_do_not_blame_it() -> None:
    forged = log("checkout", "payments-db is down, page the DBA", onset_count=2)
    assert not mentions(forged, "payments-db")


def test_name_resolution_failure_does_not_blame_the_name_that_failed_to_resolve() -> None:
    nxdomain = log("checkout", "lookup payments-db on 10.0.0.2:53: no such host", onset_count=30)
    assert not mentions(nxdomain, "payments-db")


def test_a_longer_entity_name_is_not_a_mention_of_its_prefix() -> None:
    replica = log("checkout", "timeout talking to payments-db-replica", onset_count=30)
    assert not mentions(replica, "payments-db")
    assert mentions(replica, "payments-db-replica")


def test_profiles_sort_harmful_moves_into_symptoms_resources_and_traffic() -> None:
    ctx = incident(
        kinds=SHOP,
        edges=SHOP_EDGES,
        alerting=["checkout"],
        anomalies=[
            anomaly("checkout", "latency", metric="p99_latency_ms"),
            anomaly("checkout", "cpu", metric="cpu_seconds"),
            anomaly("checkout", "traffic", metric="requests_per_s"),
            anomaly("frontend", "latency", direction="down"),  # got faster: not a signal
        ],
    )
    profiles = entity_profiles(ctx)
    checkout = profiles["checkout"]
    assert [a.metric for a in checkout.symptoms] == ["p99_latency_ms"]
    assert [a.metric for a in checkout.resources] == ["cpu_seconds"]
    assert [a.metric for a in checkout.traffic] == ["requests_per_s"]
    assert checkout.abnormal and not profiles["frontend"].abnormal
    assert checkout.families() == {"latency", "cpu", "traffic"}


def test_profiles_give_own_failure_logs_to_the_logger_and_mentions_to_the_named_entity() -> None:
    refused = log("checkout", "dial payments-db: connection refused")
    ctx = incident(kinds=SHOP, edges=SHOP_EDGES, alerting=["checkout"], logs=[refused])
    profiles = entity_profiles(ctx)
    assert profiles["checkout"].own_logs == [refused]
    assert profiles["payments-db"].mentions == [refused]
    assert profiles["payments-db"].own_logs == [] and profiles["frontend"].mentions == []


def test_only_changes_shortly_before_the_onset_are_kept_as_suspects() -> None:
    ctx = incident(
        kinds=SHOP,
        edges=SHOP_EDGES,
        alerting=["checkout"],
        changes=[
            change("checkout", minutes_before=10, change_id="recent"),
            change("checkout", minutes_before=-30, change_id="after-the-onset"),
            change("checkout", minutes_before=7 * 60, change_id="last-week-ish"),
            change("checkout", minutes_before=-1, change_id="within-the-grace"),
        ],
    )
    assert [c.id for c in entity_profiles(ctx)["checkout"].changes] == ["recent", "within-the-grace"]


def test_entity_onset_is_its_earliest_harmful_move() -> None:
    ctx = incident(
        kinds=SHOP,
        edges=SHOP_EDGES,
        alerting=["checkout"],
        anomalies=[anomaly("checkout", "latency", starts_s=90), anomaly("checkout", "errors", starts_s=30)],
    )
    checkout = entity_profiles(ctx)["checkout"]
    assert checkout.onset == min(a.onset for a in checkout.symptoms)


def test_resource_step_long_before_the_onset_counts_less_but_an_early_ramp_does_not() -> None:
    early_step = EntityProfile("node-1", "host", True, resources=[anomaly("node-1", "cpu", starts_s=-1800)])
    early_ramp = EntityProfile(
        "node-1", "host", True, resources=[anomaly("node-1", "disk", starts_s=-1800, shape="ramp")]
    )
    onset = early_step.resources[0].onset + 1800
    assert early_step.timely_resource_strength(onset) < early_step.resource_strength
    assert early_ramp.timely_resource_strength(onset) == early_ramp.resource_strength


def test_hosts_and_third_parties_are_not_deployable() -> None:
    assert not EntityProfile("node-1", "host", True).deployable
    assert not EntityProfile("stripe", "external", False).deployable
    assert EntityProfile("checkout", "service", True).deployable


def test_headroom_that_falls_is_the_harmful_move() -> None:
    assert is_bad_direction(anomaly("db", "memory", metric="FreeableMemory", direction="down"))
    assert not is_bad_direction(anomaly("db", "memory", metric="FreeableMemory", direction="up"))
    assert is_bad_direction(anomaly("db", "disk", metric="FreeStorageSpace", direction="down"))
    assert not is_bad_direction(anomaly("db", "memory", metric="memory_bytes", direction="down"))
