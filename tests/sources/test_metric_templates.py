"""Metric templates: what each reads, how user templates merge with the defaults, which entities a snapshot asks."""

from __future__ import annotations

from rootward.domain.topology import Entity, Topology
from rootward.sources.metric_templates import (
    DEFAULT_TEMPLATES,
    MetricTemplate,
    exporters,
    merge_templates,
    required_vectors,
)
from rootward.sources.prometheus import PrometheusSettings
from rootward.sources.prometheus_entities import discoverable, host_namespaces, label_matcher, match_entity
from rootward.sources.snapshot_scope import entity_kind, snapshot_entities


def test_required_vectors_are_the_names_whose_matchers_hold_a_placeholder() -> None:
    promql = 'sum(rate(x_total{{selector},code=~"5.."}[5m])) / sum(y{container="{service}",a="b,c"}) + z{q="1"}'
    assert required_vectors(promql) == (("x_total", ("{selector}",)), ("y", ('container="{service}"',)))


def test_user_templates_merge_with_the_defaults_by_name() -> None:
    user: dict[str, MetricTemplate | str | None] = {
        "http_latency_p99": "histogram_quantile(0.99, sum by (le) (rate(my_latency_bucket{{selector}}[1m])))",
        "grpc_request_rate": None,
        "queue_depth": MetricTemplate(promql="max(queue_depth{{selector}})", signal="saturation"),
    }
    merged = merge_templates(user)
    names = [t.name for t in merged]
    assert names[:2] == ["http_latency_p99", "queue_depth"]  # user templates come first: preferred for their word
    assert "grpc_request_rate" not in names
    assert names.count("http_latency_p99") == 1
    assert len(merged) == len(DEFAULT_TEMPLATES) - 1 + 1
    assert (merged[0].metric, merged[0].exporter) == ("latency_p99_ms", "client library")  # the default's word
    assert (merged[1].metric, merged[1].signal, merged[1].entity) == ("queue_depth", "saturation", "service")
    assert [t.name for t in merge_templates(user, defaults=False)] == ["http_latency_p99", "queue_depth"]


def test_every_default_template_reads_something_about_its_entity() -> None:
    for template in DEFAULT_TEMPLATES:
        assert template.needs, template.name
    names = {t.name for t in DEFAULT_TEMPLATES}
    assert len(names) == len(DEFAULT_TEMPLATES)
    kinds = dict(exporters())
    assert {"client library", "OpenTelemetry", "node_exporter", "cAdvisor", "kube-state-metrics"} <= set(kinds)
    assert {"request_rate", "error_rate", "latency_p99_ms"} <= set(kinds["OpenTelemetry"])


def test_the_older_single_service_label_still_configures() -> None:
    assert PrometheusSettings(base_url="http://p", service_label="app").service_labels == ["app"]  # type: ignore[call-arg]
    assert PrometheusSettings(base_url="http://p").service_labels[-1] == "job"


def test_an_entity_is_named_by_the_first_label_with_series_and_matches_templates_by_what_exists() -> None:
    held = {
        'job="orders"': {"http_requests_total", "process_cpu_seconds_total", "python_gc_objects_collected_total",
                         "python_info", "http_requests_created", "up", "orders_queue_depth", "node_load1"},
        'container="orders"': {"container_memory_working_set_bytes"},
    }  # fmt: skip
    asked: list[str] = []

    def lookup(matchers: str) -> set[str]:
        asked.append(matchers)
        return held.get(matchers, set())

    found = match_entity("orders", "service", DEFAULT_TEMPLATES, ["service", "app", "job"], lookup)
    assert found.selector == 'job="orders"' and found.label == "job"
    assert asked[:3] == ['service="orders"', 'app="orders"', 'job="orders"']
    matched = {t.name for t in found.matched}
    assert {"http_request_rate", "http_error_rate", "process_cpu", "scrape_up", "container_memory_by_name"} <= matched
    assert "http_latency_p99" not in matched and "node_cpu" not in matched
    assert all(t.entity == "service" for t in found.tried)
    # Discovery keeps what no matched template reads: no bookkeeping, runtime internals or host exporter series.
    assert discoverable(found, 40, host_namespaces(DEFAULT_TEMPLATES)) == ["orders_queue_depth"]


def test_a_host_is_matched_with_or_without_its_port() -> None:
    assert label_matcher("instance", "10.0.0.5") == 'instance=~"10\\\\.0\\\\.0\\\\.5(:[0-9]+)?"'
    assert entity_kind("host") == "host" and entity_kind("database") == "service"


def test_snapshot_asks_the_alerting_entities_then_what_they_depend_on_then_callers() -> None:
    topology = Topology(
        entities={
            "web": Entity("web", depends_on=("orders",)),
            "orders": Entity("orders", depends_on=("db",), runs_on=("node-1",)),
            "db": Entity("db", kind="database", runs_on=("node-2",)),
            "node-1": Entity("node-1", kind="host"),
            "node-2": Entity("node-2", kind="host"),
            "batch": Entity("batch", runs_on=("node-1",)),
            "far": Entity("far", depends_on=("batch",)),
        }
    )
    picked = snapshot_entities(["orders"], topology)
    assert [e.name for e in picked] == ["orders", "db", "node-1", "node-2", "web", "batch"]
    assert picked[0].alerting and not picked[1].alerting and picked[2].kind == "host"
    assert [e.name for e in snapshot_entities(["orders"], None)] == ["orders"]
    assert [e.name for e in snapshot_entities(["orders"], topology, limit=2)] == ["orders", "db"]


def test_a_connector_without_its_own_probe_is_asked_its_cheapest_question() -> None:
    from datetime import UTC, datetime

    from rootward.sources.check import _any

    class Topo:
        def graph(self) -> Topology:
            return Topology()

    now = datetime(2026, 3, 1, tzinfo=UTC)
    assert _any(Topo(), now, now).detail == "answers graph()"


def test_the_host_cpu_template_is_a_share_of_all_cpus_so_it_can_be_held_against_its_limit() -> None:
    from rootward.engine.headroom import CAPACITY_RATIO

    node_cpu = next(t for t in DEFAULT_TEMPLATES if t.name == "node_cpu")
    assert CAPACITY_RATIO.search(node_cpu.metric), node_cpu.metric
    assert node_cpu.promql.endswith('/ count(node_cpu_seconds_total{{selector},mode="idle"})')


def test_services_known_only_from_their_scrape_targets_are_asked_about_after_the_neighbourhood() -> None:
    # What Prometheus target labels give: services on hosts, no call edges at all.
    topology = Topology(
        entities={
            "orders": Entity("orders", runs_on=("node-1",)),
            "payments": Entity("payments", runs_on=("node-2",)),
            "search": Entity("search", runs_on=("node-3",)),
            "node-1": Entity("node-1", kind="host"),
            "node-2": Entity("node-2", kind="host"),
            "node-3": Entity("node-3", kind="host"),
        }
    )
    names = [e.name for e in snapshot_entities(["orders"], topology)]
    assert names == ["orders", "node-1", "payments", "search"]  # their path to orders is unknown, not absent
    assert [e.name for e in snapshot_entities(["orders"], topology, limit=3)] == ["orders", "node-1", "payments"]
