"""A Loki `query_range` endpoint over an in-memory list of lines.

It honours what the connector relies on: the `{label="value"}` stream
selector, a `|~ "(?i)..."` or `|= "..."` line filter, start/end in
nanoseconds (inclusive), `limit` and `direction`; it answers in Loki's
`streams` result shape.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from tests.sources.local_http import Reply, Request, Route

_MATCHER = re.compile(r'([a-zA-Z_]+)(=~|=)"((?:[^"\\]|\\.)*)"')
_FILTER = re.compile(r'\|(~|=) ("(?:[^"\\]|\\.)*")\s*$')


@dataclass(frozen=True)
class Line:
    ns: int
    text: str
    labels: tuple[tuple[str, str], ...]


def loki_route(lines: list[Line]) -> Route:
    def route(request: Request) -> Reply:
        if request.path != "/loki/api/v1/query_range":
            return Reply(404, "not found")
        query = request.arg("query")
        selector, _, _rest = query.partition("}")
        matchers = [(k, op, json.loads(f'"{v}"')) for k, op, v in _MATCHER.findall(selector)]
        flt = _FILTER.search(query)
        start, end = int(request.arg("start")), int(request.arg("end"))
        picked = []
        for line in lines:
            labels = dict(line.labels)
            if not start <= line.ns <= end:
                continue
            if not all(
                (labels.get(k) == v) if op == "=" else re.fullmatch(v, labels.get(k, "")) for k, op, v in matchers
            ):
                continue
            if flt:
                needle = json.loads(flt.group(2))
                if flt.group(1) == "~" and not re.search(needle, line.text):
                    continue
                if flt.group(1) == "=" and needle not in line.text:
                    continue
            picked.append(line)
        picked.sort(key=lambda ln: ln.ns, reverse=request.arg("direction") == "backward")
        picked = picked[: int(request.arg("limit", "100"))]
        streams: dict[tuple[tuple[str, str], ...], list[list[str]]] = {}
        for line in picked:
            streams.setdefault(line.labels, []).append([str(line.ns), line.text])
        result = [{"stream": dict(labels), "values": values} for labels, values in streams.items()]
        return Reply(200, {"status": "success", "data": {"resultType": "streams", "result": result}})

    return route
