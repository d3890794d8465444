"""Does a cite resolve? The spec's cite forms, checked against what the sources hold.

The verifier asks this of every evidence item before anything is published;
the evaluation harness checks the same rules independently.
"""

from __future__ import annotations

import re
from typing import Protocol

from rootward.sources.bundle import Bundle

_METRIC = re.compile(r"^metrics\.csv:(?P<svc>[^/]+)/(?P<metric>.+)@(?P<start>-?\d+)-(?P<end>-?\d+)$")


class CiteResolver(Protocol):
    def resolves(self, cite: str) -> bool: ...


class BundleCiteResolver:
    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle
        self._lines = {r.line for r in bundle.logs or []}
        self._series = {(s.service, s.metric): s.timestamps for s in bundle.metrics or []}
        self._changes = {c.id for c in bundle.changes or []}
        self._alerts = {a.fingerprint for a in bundle.alerts}
        self._docs = {d.path for d in bundle.documents or []}

    def resolves(self, cite: str) -> bool:
        kind, _, rest = cite.partition(":")
        if kind == "logs.jsonl":
            return rest.isdigit() and int(rest) in self._lines
        if kind == "metrics.csv":
            m = _METRIC.match(cite)
            if m is None:
                return False
            ts = self._series.get((m["svc"], m["metric"]))
            lo, hi = int(m["start"]), int(m["end"])
            return ts is not None and any(lo <= t <= hi for t in ts)
        if kind == "changes.json":
            return rest in self._changes
        if kind == "alerts.json":
            return rest in self._alerts
        if kind == "topology.yaml":
            a, sep, b = rest.partition("->")
            return bool(sep) and self._bundle.topology is not None and self._bundle.topology.has_edge(a, b)
        if cite.startswith("knowledge/"):
            path, sep, chunk = cite[len("knowledge/") :].rpartition("#")
            return bool(sep) and chunk.isdigit() and path in self._docs
        return False


class TrustingResolver:
    """For live sources, where a cite is the exact query that ran: it resolves by construction."""

    def resolves(self, cite: str) -> bool:
        return bool(cite)
