"""Links from a live citation back to the source's own UI, showing the same query over the same range.

A reader who doubts a claim should be one click from the data: the PromQL in
the Prometheus graph page or in Grafana Explore, the LogQL in Explore, the
trace in Jaeger's or Grafana's trace view. Pure string building; each
connector calls the one its settings allow (no base URL, no link).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def prometheus_graph_url(base: str, expr: str, start: datetime, end: datetime) -> str:
    """Prometheus' `/graph` page with the expression, ending at `end` and spanning [start, end]."""
    span = max(60, int((end - start).total_seconds()))
    params = {
        "g0.expr": expr,
        "g0.tab": "0",
        "g0.range_input": f"{span}s",
        "g0.end_input": end.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"),
    }
    return f"{base.rstrip('/')}/graph?{urlencode(params, quote_via=quote)}"


def grafana_explore_url(
    base: str, datasource: str | None, query: dict[str, Any], start: datetime, end: datetime
) -> str:
    """Grafana Explore (`left=` state, which current Grafana still accepts) with one query over the range."""
    target: dict[str, Any] = {"refId": "A", **query}
    state: dict[str, Any] = {"queries": [target], "range": {"from": str(_ms(start)), "to": str(_ms(end))}}
    if datasource:
        state["datasource"] = datasource
        target["datasource"] = {"uid": datasource}
    left = json.dumps(state, separators=(",", ":"), sort_keys=True)
    return f"{base.rstrip('/')}/explore?{urlencode({'orgId': '1', 'left': left}, quote_via=quote)}"


def jaeger_trace_url(base: str, trace_id: str) -> str:
    return f"{base.rstrip('/')}/trace/{quote(trace_id)}"


def jaeger_search_url(base: str, service: str, start: datetime, end: datetime) -> str:
    params = {"service": service, "start": str(_ms(start) * 1000), "end": str(_ms(end) * 1000), "limit": "20"}
    return f"{base.rstrip('/')}/search?{urlencode(params, quote_via=quote)}"
