"""Mechanical check that a cite resolves inside a bundle (the spec's cite table).

Used by the evaluation harness to score citation accuracy; the engine's
verifier may reuse it. It works on a loaded `Bundle`, which never holds truth.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from rootward.sources.bundle import Bundle

_METRIC_RE = re.compile(r"^metrics\.csv:(?P<svc>[^/]+)/(?P<metric>[^@]+)@(?P<start>-?\d+)-(?P<end>-?\d+)$")
_LOG_RE = re.compile(r"^logs\.jsonl:(?P<line>\d+)$")
_KNOWLEDGE_RE = re.compile(r"^knowledge/(?P<path>.+)#(?P<chunk>\d+)$")


@dataclass(frozen=True)
class CiteCheck:
    cite: str
    ok: bool
    reason: str = ""
    entities: tuple[str, ...] = ()  # entities the cited data is about, for "truth among evidence"


class CiteResolver:
    """Resolves cites against one bundle; build once per bundle, it indexes the data."""

    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle
        self._log_service = {r.line: r.service for r in bundle.logs or []}
        self._series = {(s.service, s.metric): s.timestamps for s in bundle.metrics or []}
        self._changes = {c.id: c.service for c in bundle.changes or []}
        self._alerts = {a.fingerprint: a.service for a in bundle.alerts}
        self._docs = {d.path for d in bundle.documents or []}

    def check(self, cite: str) -> CiteCheck:
        cite = cite.strip()
        if cite.startswith("logs.jsonl:"):
            return self._log(cite)
        if cite.startswith("metrics.csv:"):
            return self._metric(cite)
        if cite.startswith("changes.json:"):
            cid = cite.split(":", 1)[1]
            if self._bundle.changes is None:
                return CiteCheck(cite, False, "changes.json is missing from the bundle")
            svc = self._changes.get(cid)
            return CiteCheck(cite, svc is not None, "" if svc else f"no change with id {cid!r}", (svc,) if svc else ())
        if cite.startswith("alerts.json:"):
            fp = cite.split(":", 1)[1]
            svc = self._alerts.get(fp)
            return CiteCheck(
                cite, svc is not None, "" if svc else f"no alert with fingerprint {fp!r}", (svc,) if svc else ()
            )
        if cite.startswith("topology.yaml:"):
            return self._edge(cite)
        if cite.startswith("knowledge/"):
            m = _KNOWLEDGE_RE.match(cite)
            if not m:
                return CiteCheck(cite, False, "knowledge cite must be knowledge/<path>#<chunk>")
            ok = m["path"] in self._docs
            return CiteCheck(cite, ok, "" if ok else f"no document knowledge/{m['path']}")
        return CiteCheck(cite, False, "unknown cite form")

    def resolves(self, cite: str) -> bool:
        return self.check(cite).ok

    def _log(self, cite: str) -> CiteCheck:
        m = _LOG_RE.match(cite)
        if not m:
            return CiteCheck(cite, False, "log cite must be logs.jsonl:<line>")
        if self._bundle.logs is None:
            return CiteCheck(cite, False, "logs.jsonl is missing from the bundle")
        line = int(m["line"])
        svc = self._log_service.get(line)
        return CiteCheck(cite, svc is not None, "" if svc else f"logs.jsonl has no line {line}", (svc,) if svc else ())

    def _metric(self, cite: str) -> CiteCheck:
        m = _METRIC_RE.match(cite)
        if not m:
            return CiteCheck(cite, False, "metric cite must be metrics.csv:<service>/<metric>@<start>-<end>")
        if self._bundle.metrics is None:
            return CiteCheck(cite, False, "metrics.csv is missing from the bundle")
        stamps = self._series.get((m["svc"], m["metric"]))
        if stamps is None:
            return CiteCheck(cite, False, f"no series {m['svc']}/{m['metric']}")
        start, end = int(m["start"]), int(m["end"])
        i = bisect.bisect_left(stamps, start)
        ok = i < len(stamps) and stamps[i] <= end
        return CiteCheck(cite, ok, "" if ok else f"no samples in [{start}, {end}]", (m["svc"],))

    def _edge(self, cite: str) -> CiteCheck:
        body = cite.split(":", 1)[1]
        if "->" not in body:
            return CiteCheck(cite, False, "topology cite must be topology.yaml:<a>-><b>")
        a, b = body.split("->", 1)
        topo = self._bundle.topology
        if topo is None:
            return CiteCheck(cite, False, "topology.yaml is missing from the bundle")
        ok = topo.has_edge(a, b)
        return CiteCheck(cite, ok, "" if ok else f"no edge {a} -> {b}", (a, b))
