"""A Tempo query-frontend over recorded OTLP traces: `/api/search` (TraceQL) and `/api/traces/<id>`.

It honours what the connector relies on: a TraceQL `{}` or
`{ resource.service.name = "x" }` (other conditions are refused with a 400, as
an unknown attribute would be), `start`/`end` in epoch seconds (a span of the
service starts inside), `limit`; search results carry hex trace ids without
leading zeros, as Tempo's do, and `/api/traces/<id>` accepts them so.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from tests.sources.fake_jaeger import recorded
from tests.sources.local_http import Reply, Request, Route

_SERVICE = re.compile(r'^\{ resource\.service\.name = "((?:[^"\\]|\\.)*)" \}$')


def _hex(value: str) -> str:
    return value.lower() if re.fullmatch(r"[0-9a-fA-F]{32}", value) else base64.b64decode(value).hex()


def _spans(trace: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for batch in trace.get("batches") or trace.get("resourceSpans") or []:
        attrs = {a["key"]: a["value"].get("stringValue") for a in batch["resource"]["attributes"]}
        for scope in batch.get("scopeSpans") or batch.get("instrumentationLibrarySpans") or []:
            out += [(attrs["service.name"], span) for span in scope["spans"]]
    return out


def tempo_route(traces: dict[str, dict[str, Any]]) -> Route:
    def route(request: Request) -> Reply:
        if request.path == "/api/search":
            query = request.arg("q")
            match = _SERVICE.match(query)
            if query != "{}" and match is None:
                return Reply(400, f"unsupported TraceQL in this fake: {query}")
            start_ns, end_ns = int(request.arg("start")) * 10**9, int(request.arg("end")) * 10**9
            found = []
            for trace_id, trace in traces.items():
                spans = _spans(trace)
                if any(
                    (match is None or service == match.group(1))
                    and start_ns <= int(span["startTimeUnixNano"]) <= end_ns
                    for service, span in spans
                ):
                    root_service, root = min(spans, key=lambda pair: int(pair[1]["startTimeUnixNano"]))
                    found.append(
                        {
                            "traceID": trace_id.lstrip("0"),
                            "rootServiceName": root_service,
                            "rootTraceName": root["name"],
                            "startTimeUnixNano": root["startTimeUnixNano"],
                        }
                    )
            return Reply(200, {"traces": found[: int(request.arg("limit", "20"))], "metrics": {}})
        if request.path.startswith("/api/traces/"):
            wanted = request.path.removeprefix("/api/traces/").rjust(32, "0")
            trace = traces.get(wanted)
            return Reply(200, trace) if trace is not None else Reply(404, "trace not found")
        return Reply(404, "404 page not found\n")

    return route


def recorded_tempo() -> Route:
    """The route over `tests/fixtures/traces/tempo_traces.json` ({hex trace id: OTLP JSON answer})."""
    traces: dict[str, dict[str, Any]] = recorded("tempo_traces.json")
    assert all(_hex(tid) == tid for tid in traces)
    return tempo_route(traces)
