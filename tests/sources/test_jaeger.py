"""The Jaeger connector through its real HTTP client against a local server speaking the query API."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rootward.settings import json_schema, load_settings
from rootward.sources.base import SourceUnavailable
from rootward.sources.jaeger import JaegerSettings, JaegerSource
from rootward.sources.live import build_live_sources
from rootward.sources.topology_merge import MergedTopologySource
from tests.sources.fake_jaeger import recorded_jaeger
from tests.sources.local_http import Reply, free_port, serve

pytestmark = pytest.mark.integration

T0 = datetime(2026, 3, 14, 13, 40, tzinfo=UTC)
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


def _source(url: str, **overrides: object) -> JaegerSource:
    return JaegerSource(JaegerSettings(**{"base_url": url, "timeout_s": 5, **overrides}))  # type: ignore[arg-type]


def test_spans_of_a_service_carry_service_parent_status_kind_pod_and_host() -> None:
    with serve(recorded_jaeger()) as (url, seen):
        spans = _source(url).spans("payment", T0, T0 + timedelta(minutes=5))
    assert {s.trace_id for s in spans} == {TRACE}  # the whole trace that touched payment, not the Refund at +2 h
    by_id = {s.span_id: s for s in spans}
    charge = by_id["3c4d5e6f708192a3"]
    assert (charge.service, charge.operation, charge.parent_id) == ("payment", "Charge", "2b3c4d5e6f708192")
    assert (charge.status, charge.kind, charge.pod, charge.host) == ("error", "server", "payment-0", "node-3")
    assert charge.start == T0 + timedelta(milliseconds=3) and charge.duration_ms == 160.25
    assert charge.attributes == {"exception.type": "TimeoutError"}
    assert by_id["2b3c4d5e6f708192"].status == "error"  # otel.status_code=ERROR
    assert by_id["1a2b3c4d5e6f7081"].kind == "client"
    root = by_id["00f067aa0ba902b7"]
    # No error tag, but the frontend answered 500: a server-side failure (domain.span_status).
    assert root.parent_id is None and root.status == "error" and root.attributes == {"http.status_code": 500}
    assert seen[0].path == "/api/traces"
    assert (seen[0].arg("service"), seen[0].arg("start"), seen[0].arg("limit")) == (
        "payment",
        str(int(T0.timestamp()) * 1_000_000),
        "100",
    )
    assert seen[0].arg("end") == str(int((T0 + timedelta(minutes=5)).timestamp()) * 1_000_000)


def test_every_service_is_asked_when_none_is_named_and_shared_traces_count_once() -> None:
    with serve(recorded_jaeger()) as (url, seen):
        source = _source(url)
        spans = source.spans(None, T0, T0 + timedelta(minutes=5))
    assert [r.path for r in seen] == ["/api/services", "/api/traces", "/api/traces", "/api/traces"]
    assert [r.arg("service") for r in seen[1:]] == ["checkout", "frontend", "payment"]
    assert len(spans) == 6 and len({(s.trace_id, s.span_id) for s in spans}) == 6
    assert [s.start for s in spans] == sorted(s.start for s in spans)
    cart = next(s for s in spans if s.operation == "GET /cart")
    assert cart.status == "ok"  # otel.status_code=OK
    assert (
        source.last_invocations[0]
        == "Jaeger /api/traces?service=checkout [2026-03-14T13:40:00Z .. 2026-03-14T13:45:00Z]"
    )


def test_a_64_bit_trace_id_is_padded_to_opentelemetry_width() -> None:
    with serve(recorded_jaeger()) as (url, _seen):
        (refund,) = _source(url).spans("payment", T0 + timedelta(hours=2), T0 + timedelta(hours=3))
    assert (refund.trace_id, refund.span_id, refund.operation) == (
        "0000000000000000d1f0000000000003",
        "c2c2c2c2c2c2c2c2",
        "Refund",
    )


def test_max_services_bounds_the_requests_for_all_services() -> None:
    with serve(recorded_jaeger()) as (url, seen):
        _source(url, max_services=1).spans(None, T0, T0 + timedelta(minutes=5))
    assert [r.arg("service") for r in seen if r.path == "/api/traces"] == ["checkout"]


def test_dependencies_become_the_call_graph_topology() -> None:
    now = T0 + timedelta(hours=1)
    with serve(recorded_jaeger()) as (url, seen):
        source = JaegerSource(JaegerSettings(base_url=url, dependencies_lookback_s=3600), clock=lambda: now)
        graph = source.graph()
    assert graph.has_edge("frontend", "checkout") and graph.has_edge("checkout", "payment")
    assert graph.has_edge("checkout", "cart") and not graph.has_edge("payment", "checkout")
    assert graph.entities["cart"].depends_on == ()
    assert (seen[0].arg("endTs"), seen[0].arg("lookback")) == (str(int(now.timestamp() * 1000)), "3600000")


def test_a_slow_jaeger_is_a_named_gap_after_the_timeout() -> None:
    with serve(lambda _r: Reply(200, {"data": []}, delay_s=1.0)) as (url, _seen):
        source = _source(url, timeout_s=0.3)
        with pytest.raises(SourceUnavailable) as info:
            source.spans("payment", T0, T0 + timedelta(minutes=5))
    assert str(info.value) == "Jaeger: /api/traces timed out after 0.3 s"


def test_a_jaeger_5xx_is_a_named_gap_with_its_status_and_message() -> None:
    body = {"data": None, "errors": [{"code": 503, "msg": "elasticsearch: no living connections"}]}
    with serve(lambda _r: Reply(503, body)) as (url, _seen), pytest.raises(SourceUnavailable) as info:
        _source(url).graph()
    message = str(info.value)
    assert message.startswith(f"Jaeger: /api/dependencies HTTP 503 from {url}/api/dependencies")
    assert "elasticsearch: no living connections" in message


def test_errors_in_a_200_answer_are_a_gap_not_an_empty_result() -> None:
    body = {"data": None, "errors": [{"code": 500, "msg": "storage: query timeout"}]}
    with serve(lambda _r: Reply(200, body)) as (url, _seen), pytest.raises(SourceUnavailable) as info:
        _source(url).spans("payment", T0, T0 + timedelta(minutes=5))
    assert str(info.value) == "Jaeger: /api/traces unexpected response: error 500: storage: query timeout"


def test_token_is_sent_as_bearer_and_kept_secret() -> None:
    with serve(recorded_jaeger()) as (url, seen):
        source = _source(url, bearer_token="s3cret")
        source.spans("cart", T0, T0 + timedelta(minutes=1))
    assert seen[0].headers["authorization"] == "Bearer s3cret"
    assert "s3cret" not in repr(source.settings)


def test_a_dead_jaeger_is_a_named_gap_of_the_merged_topology(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, jaeger={"base_url": f"http://127.0.0.1:{free_port()}", "timeout_s": 2})
    topology = build_live_sources(settings.connector_sections(), settings.topology).topology
    assert isinstance(topology, MergedTopologySource)
    with pytest.raises(SourceUnavailable) as info:
        topology.graph()
    assert str(info.value) == "Jaeger: /api/dependencies cannot connect (connection refused)"


def test_jaeger_section_is_in_the_config_schema_and_the_live_sources(tmp_path: Path) -> None:
    schema = json_schema()
    assert "jaeger" in schema["properties"]
    assert "dependencies_lookback_s" in schema["$defs"]["JaegerSettings"]["properties"]
    settings = load_settings(data_dir=tmp_path, jaeger={"base_url": "http://127.0.0.1:9"})
    sources = build_live_sources(settings.connector_sections(), settings.topology)
    assert isinstance(sources.traces, JaegerSource)
    assert isinstance(sources.topology, MergedTopologySource)
    assert [name for name, _ in sources.topology.layers] == ["jaeger"]
    without = load_settings(data_dir=tmp_path, jaeger={"base_url": "http://x"}, topology={"from_traces": False})
    assert build_live_sources(without.connector_sections(), without.topology).topology is None
