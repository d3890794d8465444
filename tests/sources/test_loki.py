"""The Loki connector through its real HTTP client against a local server speaking `query_range`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from rootward.sources.loki import LokiSettings, LokiSource, build_logql
from tests.sources.fake_loki import Line, loki_route
from tests.sources.local_http import serve

pytestmark = pytest.mark.integration

T0 = datetime(2026, 3, 14, 13, 40, tzinfo=UTC)
NS0 = int(T0.timestamp()) * 1_000_000_000


def _labels(service: str, **extra: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted({"service": service, **extra}.items()))


def _lines() -> list[Line]:
    out = []
    for i in range(60):
        level = "error" if i % 3 == 0 else "info"
        text = "HikariPool-1 - Connection is not available, request timed out" if level == "error" else "GET /pay 200"
        out.append(Line(NS0 + i * 1_000_000_000, text, _labels("payment", level=level, pod="payment-1")))
    out.append(Line(NS0 + 5, json.dumps({"level": "warn", "message": "slow query", "host": "node-2"}), _labels("cart")))
    return out


def _source(url: str, **overrides: object) -> LokiSource:
    return LokiSource(LokiSettings(base_url=url, timeout_s=5, **overrides))  # type: ignore[arg-type]


def test_query_returns_records_of_the_service_with_labels_mapped() -> None:
    with serve(loki_route(_lines())) as (url, seen):
        records = _source(url).query("payment", T0, T0 + timedelta(minutes=5))
    assert len(records) == 60
    first = records[0]
    assert (first.service, first.level, first.pod, first.line) == ("payment", "ERROR", "payment-1", 0)
    assert first.ts == T0
    assert [r.ts for r in records] == sorted(r.ts for r in records)
    assert seen[0].arg("query") == '{service="payment"}'


def test_json_lines_give_message_level_and_host() -> None:
    with serve(loki_route(_lines())) as (url, _seen):
        (record,) = _source(url).query("cart", T0, T0 + timedelta(minutes=1))
    assert (record.message, record.level, record.host) == ("slow query", "WARN", "node-2")


def test_filter_is_case_insensitive_logql_line_filter() -> None:
    with serve(loki_route(_lines())) as (url, seen):
        source = _source(url)
        records = source.query("payment", T0, T0 + timedelta(minutes=5), filter="connection is NOT available")
    assert len(records) == 20
    assert seen[0].arg("query") == '{service="payment"} |~ "(?i)connection\\\\ is\\\\ NOT\\\\ available"'
    assert source.last_invocations[0].startswith('LogQL {service="payment"} |~')


def test_pages_until_the_window_is_read_without_losing_or_doubling_lines() -> None:
    lines = [Line(NS0 + (i // 4) * 1000, f"line {i}", _labels("api")) for i in range(2500)]  # 4 lines per ns
    with serve(loki_route(lines)) as (url, seen):
        records = _source(url, page_size=1000).query("api", T0, T0 + timedelta(seconds=1))
    assert sorted(r.message for r in records) == sorted(f"line {i}" for i in range(2500))
    assert len(seen) == 3


def test_max_lines_caps_and_backward_keeps_the_newest() -> None:
    with serve(loki_route(_lines())) as (url, _seen):
        records = _source(url, max_lines=10, page_size=4, direction="backward", slices=1).query(
            "payment", T0, T0 + timedelta(minutes=5)
        )
    assert len(records) == 10
    assert records[-1].ts == T0 + timedelta(seconds=59)
    assert records[0].ts == T0 + timedelta(seconds=50)


def test_tenant_and_token_headers_are_sent() -> None:
    with serve(loki_route(_lines())) as (url, seen):
        _source(url, tenant_id="team-a", bearer_token="s3cret").query("payment", T0, T0 + timedelta(seconds=1))
    assert seen[0].headers["x-scope-orgid"] == "team-a"
    assert seen[0].headers["authorization"] == "Bearer s3cret"


def test_logql_for_all_services_with_extra_selector() -> None:
    settings = LokiSettings(base_url="http://x", selector='namespace="prod"', case_insensitive_filter=False)
    assert build_logql(settings, None, 'say "hi"') == '{service=~".+", namespace="prod"} |= "say \\"hi\\""'


def test_capped_window_is_read_as_slices_so_its_end_is_seen_too() -> None:
    with serve(loki_route(_lines())) as (url, _seen):
        records = _source(url, max_lines=12, page_size=100, slices=3).query("payment", T0, T0 + timedelta(seconds=60))
    seconds = [int((r.ts - T0).total_seconds()) for r in records]
    assert seconds == [0, 1, 2, 3, 20, 21, 22, 23, 40, 41, 42, 43]
