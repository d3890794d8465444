"""Metric names in any convention read as the same families, and headroom falls the harmful way."""

from __future__ import annotations

import pytest

from rootward.context.metric_names import (
    family_of,
    is_headroom,
    latency_quantile,
    split_labels,
    success_ceiling,
    words_of,
)
from rootward.engine.signals import is_bad_direction
from tests.engine.small_incidents import anomaly


def test_camel_case_and_dotted_names_split_into_words() -> None:
    assert words_of("FreeableMemory") == "freeable_memory"
    assert words_of("TargetResponseTime") == "target_response_time"
    assert words_of("HTTPCode_Target_5XX_Count") == "http_code_target_5xx_count"
    assert words_of("api.requests.p99") == "api_requests_p99"


@pytest.mark.parametrize(
    ("metric", "family"),
    [
        ("CPUUtilization", "cpu"),
        ("FreeableMemory", "memory"),
        ("FreeStorageSpace", "disk"),
        ("ReadIOPS", "disk"),
        ("DatabaseConnections", "connections"),
        ("NetworkIn", "network"),
        ("TargetResponseTime", "latency"),
        ("Duration", "latency"),
        ("IteratorAge", "latency"),
        ("ApproximateAgeOfOldestMessage", "latency"),
        ("kafka_consumergroup_lag", "latency"),
        ("HTTPCode_Target_5XX_Count", "errors"),
        ("Errors", "errors"),
        ("Availability", "errors"),
        ("ExecutionsTimedOut", "errors"),
        ("grpc_client_timeouts_total", "errors"),
        ("Invocations", "traffic"),
        ("Count", "traffic"),
        ("ConsumedReadCapacityUnits", "traffic"),  # a table's reads: the work asked of it
        ("ConsumedWriteCapacityUnits", "traffic"),
        ("latency_p99_ms", "latency"),
        ("cpu_usage", "cpu"),
        ("queue_depth", "other"),
        ("lock_waits", "locks"),
        ("mysql_global_status_innodb_row_lock_waits", "locks"),
        ("Deadlocks", "locks"),
        ("pg_locks_count", "locks"),
        ("clock_skew_seconds", "latency"),
    ],
)
def test_one_vocabulary_reads_prometheus_and_cloudwatch_names(metric: str, family: str) -> None:
    assert family_of(metric) == family


def test_availability_falling_is_the_harmful_way() -> None:
    down = anomaly("checkout", "errors", metric="Availability", direction="down", baseline=99.9, after=91.0)
    assert family_of(down.metric) == "errors" and is_bad_direction(down)
    assert not is_bad_direction(anomaly("checkout", "errors", metric="Availability", direction="up"))
    assert family_of("MemAvailable") == "memory" and family_of("available_connections") == "connections"


def test_usage_is_not_read_as_an_age() -> None:
    assert family_of("container_memory_usage_bytes") == "memory"
    assert family_of("gpu_usage") == "other"


def test_headroom_is_named_for_what_is_left() -> None:
    assert is_headroom("FreeableMemory")
    assert is_headroom("node_memory_MemAvailable_bytes")
    assert is_headroom("CPUCreditBalance")
    assert is_headroom("node_filesystem_avail_bytes")
    assert not is_headroom("memory_bytes")
    assert not is_headroom("disk_used_ratio")


def test_a_success_share_is_bounded_by_its_ceiling() -> None:
    assert success_ceiling("Availability", [99.9, 99.8, 93.0]) == 100.0
    assert success_ceiling("success_ratio", [0.999, float("nan"), 0.93]) == 1.0
    assert success_ceiling("error_rate", [0.01, 0.07]) == 0.0
    assert success_ceiling("MemAvailable", [2e9, 1e9]) == 0.0  # headroom, not a success share


@pytest.mark.parametrize(
    ("metric", "family"),
    [
        ('http_requests_total{code="500"}', "errors"),
        ('istio_requests_total{response_code="503",source="web"}', "errors"),
        ('http_server_requests_seconds_count{outcome="SERVER_ERROR",uri="/pay"}', "errors"),
        ('grpc_server_handled_total{grpc_code="DeadlineExceeded"}', "errors"),
        ('http_requests_total{status="5xx"}', "errors"),
        # The requests that succeeded, or failed on the client's side, are traffic as the name says.
        ('http_requests_total{code="200"}', "traffic"),
        ('http_requests_total{code="404"}', "traffic"),
        # Labels other than the outcome never decide: a pod named for a lock is still a CPU series.
        ('container_cpu_usage_seconds_total{pod="lock-manager-0"}', "cpu"),
        ('http_requests_total{handler="/errors"}', "traffic"),
    ],
)
def test_a_label_set_saying_the_requests_failed_makes_the_series_an_error_count(metric: str, family: str) -> None:
    assert family_of(metric) == family


def test_the_label_set_is_split_from_the_name() -> None:
    assert split_labels('http_requests_total{code="500", method="GET"}') == (
        "http_requests_total",
        {"code": "500", "method": "GET"},
    )
    assert split_labels("FreeableMemory") == ("FreeableMemory", {})


@pytest.mark.parametrize(
    ("metric", "family"),
    [
        # A family word counts where a word begins: none of these is what a substring says.
        ("container_cpu_cfs_throttled_seconds_total", "cpu"),  # not a filesystem (`fs_`)
        ("workload", "traffic"),  # not a load average
        ("cartservice_workload", "traffic"),
        ("shippingservice_cpu", "cpu"),  # a service's name in the metric's: no `ping`
        ("shippingservice_latency-50", "latency"),
        ("upload_duration_seconds", "latency"),
        ("bloom_filter_false_positives", "other"),  # no OOM
        ("dotnet_gc_heap_size_bytes", "memory"),
        ("kube_deployment_status_replicas_unavailable", "errors"),
        ("node_load15", "cpu"),
        ("container_fs_reads_bytes_total", "disk"),
    ],
)
def test_family_words_are_read_where_a_word_begins(metric: str, family: str) -> None:
    assert family_of(metric) == family


def test_unavailable_replicas_are_a_count_of_failures_not_a_success_share() -> None:
    assert success_ceiling("kube_deployment_status_replicas_unavailable", [0.0, 2.0]) == 0.0
    assert success_ceiling("Availability", [99.9, 93.0]) == 100.0


@pytest.mark.parametrize(
    ("metric", "quantile"),
    [
        ("latency_p50_ms", 0.5),
        ("latency-90", 0.9),  # RCAEval's columns
        ("latency_p99_ms", 0.99),
        ("p999_latency", 0.999),
        ('http_request_duration_seconds{quantile="0.95"}', 0.95),
        ("median_latency", 0.5),
        ("latency_ms", None),
        ("TargetResponseTime", None),
        ("cpu_p99", None),  # not a latency
    ],
)
def test_a_latency_series_name_says_its_quantile(metric: str, quantile: float | None) -> None:
    assert latency_quantile(metric) == quantile
