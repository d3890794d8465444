"""A Jaeger query service over recorded traces: `/api/services`, `/api/traces`, `/api/dependencies`.

It honours what the connector relies on: `service` (a trace matches when one of
its processes is that service), `start`/`end` in microseconds (a span of that
service starts inside), `limit` traces, and `endTs`/`lookback` (milliseconds,
both required, as Jaeger requires them). Answers have Jaeger's envelope.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.sources.local_http import Reply, Request, Route

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "traces"


def recorded(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _envelope(data: Any) -> dict[str, Any]:
    return {"data": data, "total": len(data), "limit": 0, "offset": 0, "errors": None}


def _touches(trace: dict[str, Any], service: str, start: int, end: int) -> bool:
    pids = {pid for pid, proc in trace["processes"].items() if proc["serviceName"] == service}
    return any(s["processID"] in pids and start <= s["startTime"] <= end for s in trace["spans"])


def jaeger_route(traces: list[dict[str, Any]], dependencies: list[dict[str, Any]]) -> Route:
    def route(request: Request) -> Reply:
        if request.path == "/api/services":
            names = {p["serviceName"] for t in traces for p in t["processes"].values()}
            return Reply(200, _envelope(sorted(names)))
        if request.path == "/api/traces":
            service = request.arg("service")
            if not service:
                return Reply(400, {"data": None, "errors": [{"code": 400, "msg": "parameter 'service' is required"}]})
            start, end = int(request.arg("start")), int(request.arg("end"))
            picked = [t for t in traces if _touches(t, service, start, end)]
            return Reply(200, _envelope(picked[: int(request.arg("limit", "20"))]))
        if request.path == "/api/dependencies":
            if not request.arg("endTs") or not request.arg("lookback"):
                return Reply(400, {"data": None, "errors": [{"code": 400, "msg": "endTs and lookback required"}]})
            return Reply(200, _envelope(dependencies))
        return Reply(404, "404 page not found\n")

    return route


def recorded_jaeger() -> Route:
    """The route over `tests/fixtures/traces/jaeger_*.json`."""
    return jaeger_route(recorded("jaeger_traces.json")["data"], recorded("jaeger_dependencies.json")["data"])
