"""The Tempo connector through its real HTTP client against a local server speaking search and trace by id."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rootward.settings import json_schema, load_settings
from rootward.sources.base import SourceUnavailable
from rootward.sources.combined import CombinedTraceSource
from rootward.sources.live import build_live_sources
from rootward.sources.span_fields import hex_id
from rootward.sources.tempo import TempoSettings, TempoSource, build_traceql
from rootward.sources.topology_merge import MergedTopologySource
from tests.sources.fake_jaeger import recorded_jaeger
from tests.sources.fake_tempo import recorded_tempo
from tests.sources.local_http import Reply, Request, serve

pytestmark = pytest.mark.integration

T0 = datetime(2026, 3, 14, 13, 40, tzinfo=UTC)
CHECKOUT_TRACE = "0af7651916cd43dd8448eb211c80319c"  # sent as base64 in `batches`
CART_TRACE = "00000000000000007c1e2f3a4b5c6d7e"  # sent as hex in `resourceSpans`


def _source(url: str, **overrides: object) -> TempoSource:
    return TempoSource(TempoSettings(**{"base_url": url, "timeout_s": 5, **overrides}))  # type: ignore[arg-type]


def test_spans_of_a_service_are_found_by_traceql_and_read_by_id_with_hex_ids() -> None:
    with serve(recorded_tempo()) as (url, seen):
        source = _source(url)
        spans = source.spans("shipping", T0, T0 + timedelta(minutes=1))
    assert seen[0].path == "/api/search"
    assert seen[0].arg("q") == '{ resource.service.name = "shipping" }'
    assert (seen[0].arg("start"), seen[0].arg("end"), seen[0].arg("limit")) == (
        str(int(T0.timestamp())),
        str(int(T0.timestamp()) + 60),
        "50",
    )
    assert [r.path for r in seen[1:]] == [f"/api/traces/{CHECKOUT_TRACE.lstrip('0')}"]  # as search gave it
    assert len(spans) == 5 and {s.trace_id for s in spans} == {CHECKOUT_TRACE}
    by_id = {s.span_id: s for s in spans}
    quote = by_id["f1e1afb5ad647775"]
    assert (quote.service, quote.operation, quote.parent_id) == ("shipping", "GetQuote", "e0d09ea49c536664")
    assert (quote.status, quote.kind, quote.pod, quote.host) == (None, "server", "shipping-0", "node-3")
    assert quote.start == T0 + timedelta(milliseconds=4) and quote.duration_ms == 10.0
    assert quote.attributes == {"rpc.method": "GetQuote"}
    root = by_id["b7ad6b7169203331"]
    assert (root.parent_id, root.status, root.kind, root.duration_ms) == (None, "error", "server", 250.5)
    assert root.attributes == {"http.status_code": 500}
    assert by_id["e0d09ea49c536664"].status == "ok"
    assert source.last_invocations == (
        'TraceQL { resource.service.name = "shipping" } [2026-03-14T13:40:00Z .. 2026-03-14T13:41:00Z]',
    )


def test_the_older_otlp_wording_with_enum_numbers_maps_the_same_way() -> None:
    with serve(recorded_tempo()) as (url, seen):
        spans = _source(url).spans("cart", T0, T0 + timedelta(minutes=5))
    assert seen[1].path == "/api/traces/7c1e2f3a4b5c6d7e"  # Tempo's search drops leading zeros
    assert {s.trace_id for s in spans} == {CART_TRACE}
    statuses = {s.operation: (s.service, s.kind, s.status, s.parent_id) for s in spans}
    assert statuses == {
        "GET /cart": ("frontend", "server", "ok", None),
        "GetCart": ("cart", "server", None, "1111111111111111"),
        "HGET": ("cart", "client", "error", "2222222222222222"),
    }


def test_every_service_is_one_search_and_every_trace_one_read() -> None:
    with serve(recorded_tempo()) as (url, seen):
        spans = _source(url).spans(None, T0, T0 + timedelta(minutes=5))
    assert seen[0].arg("q") == "{}"
    assert len(seen) == 3 and len(spans) == 8
    assert [s.start for s in spans] == sorted(s.start for s in spans)


def test_the_topology_is_the_caller_callee_pairs_of_the_spans() -> None:
    with serve(recorded_tempo()) as (url, seen):
        graph = TempoSource(TempoSettings(base_url=url), clock=lambda: T0 + timedelta(minutes=30)).graph()
    assert graph.has_edge("frontend", "checkout") and graph.has_edge("checkout", "shipping")
    assert graph.has_edge("frontend", "cart")
    assert not graph.has_edge("checkout", "frontend") and graph.entities["shipping"].depends_on == ()
    assert seen[0].arg("start") == str(int((T0 - timedelta(minutes=30)).timestamp()))


def test_a_slow_tempo_is_a_named_gap_after_the_timeout() -> None:
    with serve(lambda _r: Reply(200, {"traces": []}, delay_s=1.0)) as (url, _seen):
        source = _source(url, timeout_s=0.3)
        with pytest.raises(SourceUnavailable) as info:
            source.spans("cart", T0, T0 + timedelta(minutes=5))
    assert str(info.value) == "Tempo: /api/search timed out after 0.3 s"


def test_a_tempo_5xx_on_a_trace_read_is_a_named_gap_with_its_status_and_body() -> None:
    search = {"traces": [{"traceID": "7c1e2f3a4b5c6d7e"}]}

    def route(request: Request) -> Reply:
        return (
            Reply(200, search)
            if request.path == "/api/search"
            else Reply(500, "error querying ingesters: deadline exceeded")
        )

    with serve(route) as (url, _seen), pytest.raises(SourceUnavailable) as info:
        _source(url).spans("cart", T0, T0 + timedelta(minutes=5))
    assert str(info.value) == (
        f"Tempo: /api/traces/<id> HTTP 500 from {url}/api/traces/7c1e2f3a4b5c6d7e: "
        "error querying ingesters: deadline exceeded"
    )


def test_tenant_header_and_extra_filter_are_sent() -> None:
    with serve(lambda _r: Reply(200, {"traces": []})) as (url, seen):
        _source(url, tenant_id="team-a", filter='resource.deployment.environment = "prod"').spans(
            'we"ird', T0, T0 + timedelta(minutes=1)
        )
    assert seen[0].headers["x-scope-orgid"] == "team-a"
    assert seen[0].arg("q") == '{ resource.service.name = "we\\"ird" && resource.deployment.environment = "prod" }'


def test_ids_are_hex_whether_sent_as_hex_or_base64() -> None:
    assert hex_id("CvdlGRbNQ92ESOshHIAxnA==", 32) == CHECKOUT_TRACE
    assert hex_id("t61rcWkgMzE=", 16) == "b7ad6b7169203331"
    assert hex_id("B7AD6B7169203331", 16) == "b7ad6b7169203331"
    assert hex_id("7c1e2f3a4b5c6d7e", 32) == CART_TRACE
    assert hex_id("", 16) == ""
    assert build_traceql(TempoSettings(base_url="http://x"), None) == "{}"


def test_tempo_section_is_in_the_schema_and_combines_with_jaeger(tmp_path: Path) -> None:
    schema = json_schema()
    assert {"jaeger", "tempo"} <= set(schema["properties"])
    assert "service_attribute" in schema["$defs"]["TempoSettings"]["properties"]
    with serve(recorded_tempo()) as (tempo_url, _t), serve(recorded_jaeger()) as (jaeger_url, _j):
        settings = load_settings(data_dir=tmp_path, jaeger={"base_url": jaeger_url}, tempo={"base_url": tempo_url})
        sources = build_live_sources(settings.connector_sections(), settings.topology)
        assert isinstance(sources.traces, CombinedTraceSource) and len(sources.traces.parts) == 2
        spans = sources.traces.spans("checkout", T0, T0 + timedelta(minutes=5))
        assert isinstance(sources.topology, MergedTopologySource)
        assert [name for name, _ in sources.topology.layers] == ["jaeger", "tempo"]
    assert {s.trace_id for s in spans} == {
        CHECKOUT_TRACE,
        "4bf92f3577b34da6a3ce929d0e0e4736",
        "5ce0a3b2e1f04d7c8a9b0c1d2e3f4a5b",
    }
