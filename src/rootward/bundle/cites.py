"""The cite grammar of the bundle spec, and whether a cite resolves in a bundle.

One grammar for everyone who reads a cite: the engine's verifier drops
evidence whose cite does not resolve before anything is published, and the
evaluator scores citation accuracy with the same check, so the two can never
disagree about what a cite means.

| cite | resolves when |
|---|---|
| `logs.jsonl:<line>` | that 1-based line holds a log record |
| `metrics.csv:<service>/<metric>@<start>-<end>` | the series has samples in [start, end] |
| `changes.json:<id>` | a change with that id exists |
| `alerts.json:<fingerprint>` | an alert with that fingerprint exists |
| `topology.yaml:<a>-><b>` | a depends on or runs on b |
| `traces.jsonl:<line>` | that 1-based line holds a span |
| `traces.jsonl:<service>@<start>-<end>` | a span of that service starts in [start, end] |
| `traces.jsonl:<caller>-><callee>@<start>-<end>` | a callee span whose parent is caller's starts in [start, end] |
| `knowledge/<path>#<chunk>` | the document exists (chunk is 0-based) |

The writing side is `rootward.domain.evidence` (`log_cite`, `metric_cite`, ...),
where the context layer, which may not import this package, builds them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rootward.bundle.format import (
    ALERTS_FILE,
    CHANGES_FILE,
    KNOWLEDGE_DIR,
    LOGS_FILE,
    METRICS_FILE,
    TOPOLOGY_FILE,
    TRACES_FILE,
    Bundle,
)
from rootward.domain.pod_names import workload_bases
from rootward.domain.telemetry import Span


@dataclass(frozen=True)
class LogCite:
    line: int


@dataclass(frozen=True)
class MetricCite:
    service: str
    metric: str
    start: int
    end: int


@dataclass(frozen=True)
class ChangeCite:
    id: str


@dataclass(frozen=True)
class AlertCite:
    fingerprint: str


@dataclass(frozen=True)
class EdgeCite:
    source: str
    target: str


@dataclass(frozen=True)
class KnowledgeCite:
    path: str
    chunk: int


@dataclass(frozen=True)
class SpanCite:
    """`traces.jsonl:<line>`: one span."""

    line: int


@dataclass(frozen=True)
class ServiceSpansCite:
    """`traces.jsonl:<service>@<start>-<end>`: the spans of a service starting in the window."""

    service: str
    start: int
    end: int


@dataclass(frozen=True)
class CallSpansCite:
    """`traces.jsonl:<caller>-><callee>@<start>-<end>`: the callee's spans called by caller (one call edge)."""

    caller: str
    callee: str
    start: int
    end: int


TraceCite = SpanCite | ServiceSpansCite | CallSpansCite
Cite = LogCite | MetricCite | ChangeCite | AlertCite | EdgeCite | KnowledgeCite | TraceCite


class CiteFormError(ValueError):
    """Text that is not one of the spec's cite forms; the message says which form was expected."""


_LOG = re.compile(r"^(?P<line>[0-9]+)$")
_METRIC = re.compile(r"^(?P<svc>[^/]+)/(?P<metric>.+)@(?P<start>-?[0-9]+)-(?P<end>-?[0-9]+)$")
_KNOWLEDGE = re.compile(r"^(?P<path>.+)#(?P<chunk>[0-9]+)$")
_SPANS = re.compile(r"^(?P<who>.+)@(?P<start>-?[0-9]+)-(?P<end>-?[0-9]+)$")
_TRACE_FORMS = (
    "trace cite must be traces.jsonl:<line>, traces.jsonl:<service>@<start>-<end> "
    "or traces.jsonl:<caller>-><callee>@<start>-<end>"
)


def _trace_cite(rest: str) -> TraceCite:
    if _LOG.match(rest):
        return SpanCite(int(rest))
    m = _SPANS.match(rest)
    if not m:
        raise CiteFormError(_TRACE_FORMS)
    who, start, end = m["who"], int(m["start"]), int(m["end"])
    if "->" not in who:
        return ServiceSpansCite(who, start, end)
    caller, _, callee = who.partition("->")
    if not caller or not callee or "->" in callee:
        raise CiteFormError(_TRACE_FORMS)
    return CallSpansCite(caller, callee, start, end)


def parse_cite(text: str) -> Cite:
    """The typed cite that `text` spells (surrounding blanks ignored), or `CiteFormError`."""
    text = text.strip()
    kind, sep, rest = text.partition(":")
    if not sep:
        kind = ""
    if kind == LOGS_FILE:
        m = _LOG.match(rest)
        if not m:
            raise CiteFormError("log cite must be logs.jsonl:<line>")
        return LogCite(int(m["line"]))
    if kind == METRICS_FILE:
        m = _METRIC.match(rest)
        if not m:
            raise CiteFormError("metric cite must be metrics.csv:<service>/<metric>@<start>-<end>")
        return MetricCite(m["svc"], m["metric"], int(m["start"]), int(m["end"]))
    if kind == TRACES_FILE:
        return _trace_cite(rest)
    if kind == CHANGES_FILE:
        return ChangeCite(rest)
    if kind == ALERTS_FILE:
        return AlertCite(rest)
    if kind == TOPOLOGY_FILE:
        a, sep, b = rest.partition("->")
        if not sep:
            raise CiteFormError("topology cite must be topology.yaml:<a>-><b>")
        return EdgeCite(a, b)
    if text.startswith(KNOWLEDGE_DIR + "/"):
        m = _KNOWLEDGE.match(text[len(KNOWLEDGE_DIR) + 1 :])
        if not m:
            raise CiteFormError("knowledge cite must be knowledge/<path>#<chunk>")
        return KnowledgeCite(m["path"], int(m["chunk"]))
    raise CiteFormError("unknown cite form")


@dataclass(frozen=True)
class CiteCheck:
    cite: str
    ok: bool
    reason: str = ""
    entities: tuple[str, ...] = ()  # entities the cited data is about, for "truth among evidence"


class CiteResolver(Protocol):
    """What the verifier needs: does this cite point at data that exists?"""

    def resolves(self, cite: str) -> bool: ...


@dataclass
class SpanIndex:
    """Span start times (epoch seconds, ascending) by line, by service and by caller->callee edge."""

    service_of_line: dict[int, str] = field(default_factory=dict)
    by_service: dict[str, list[float]] = field(default_factory=dict)
    by_call: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    @classmethod
    def of(cls, spans: Sequence[Span]) -> SpanIndex:
        """Index a bundle's spans; a span whose parent is not in the bundle has no caller.

        A span of a pod-named service (`cart-5c8d9b7f6d-q2w4r`) is also indexed under its
        workload (`cart`), the name an investigation reads it by (`context.pod_series`).
        """
        index = cls()
        owner = {(s.trace_id, s.span_id): s.service for s in spans}
        names: dict[str, tuple[str, ...]] = {}
        for s in spans:
            at = s.start.timestamp()
            index.service_of_line[s.line] = s.service
            for name in _names(s.service, names):
                index.by_service.setdefault(name, []).append(at)
            caller = owner.get((s.trace_id, s.parent_id)) if s.parent_id else None
            if caller is not None:
                for edge in {(a, b) for a in _names(caller, names) for b in _names(s.service, names)}:
                    index.by_call.setdefault(edge, []).append(at)
        for starts in (*index.by_service.values(), *index.by_call.values()):
            starts.sort()
        return index


def _names(service: str, seen: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The service's own name, and the workload's it may be read as (a pod's, a target's; memoised in `seen`)."""
    if service not in seen:
        seen[service] = (service, *workload_bases(service))
    return seen[service]


def _any_inside(starts: list[float], lo: int, hi: int) -> bool:
    i = bisect.bisect_left(starts, lo)
    return i < len(starts) and starts[i] <= hi


def _pod_stamps(bundle: Bundle) -> dict[tuple[str, str], list[int]]:
    """Per (workload, metric), the sample times of the series of its pods and targets, sorted."""
    out: dict[tuple[str, str], list[int]] = {}
    for s in bundle.metrics or []:
        for base in workload_bases(s.service):
            out.setdefault((base, s.metric), []).extend(s.timestamps)
    for stamps in out.values():
        stamps.sort()
    return out


class BundleCiteResolver:
    """Resolves cites against one bundle; build once per bundle, it indexes the data."""

    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle
        self._span_index: SpanIndex | None = None  # built on the first trace cite: most results cite none
        self._log_service = {r.line: r.service for r in bundle.logs or []}
        self._series = {(s.service, s.metric): s.timestamps for s in bundle.metrics or []}
        self._pod_series = _pod_stamps(bundle)
        self._changes = {c.id: c.service for c in bundle.changes or []}
        self._alerts = {a.fingerprint: a.service for a in bundle.alerts}
        self._docs = {d.path for d in bundle.documents or []}

    def resolves(self, cite: str) -> bool:
        return self.check(cite).ok

    def check(self, cite: str) -> CiteCheck:
        cite = cite.strip()
        try:
            parsed = parse_cite(cite)
        except CiteFormError as exc:
            return CiteCheck(cite, False, str(exc))
        match parsed:
            case LogCite():
                return self._log(cite, parsed)
            case MetricCite():
                return self._metric(cite, parsed)
            case ChangeCite():
                return self._change(cite, parsed)
            case AlertCite():
                return self._alert(cite, parsed)
            case EdgeCite():
                return self._edge(cite, parsed)
            case KnowledgeCite():
                ok = parsed.path in self._docs
                return CiteCheck(cite, ok, "" if ok else f"no document knowledge/{parsed.path}")
            case SpanCite() | ServiceSpansCite() | CallSpansCite():
                return self._trace(cite, parsed)

    def _spans(self) -> SpanIndex | None:
        if self._bundle.spans is None:
            return None
        if self._span_index is None:
            self._span_index = SpanIndex.of(self._bundle.spans)
        return self._span_index

    def _trace(self, cite: str, parsed: TraceCite) -> CiteCheck:
        index = self._spans()
        if index is None:
            return CiteCheck(cite, False, f"{TRACES_FILE} is missing from the bundle")
        match parsed:
            case SpanCite():
                svc = index.service_of_line.get(parsed.line)
                if svc is None:
                    return CiteCheck(cite, False, f"{TRACES_FILE} has no line {parsed.line}")
                return CiteCheck(cite, True, "", (svc,))
            case ServiceSpansCite():
                ok = _any_inside(index.by_service.get(parsed.service, []), parsed.start, parsed.end)
                reason = "" if ok else f"no span of {parsed.service} starts in [{parsed.start}, {parsed.end}]"
                return CiteCheck(cite, ok, reason, (parsed.service,))
            case CallSpansCite():
                ok = _any_inside(index.by_call.get((parsed.caller, parsed.callee), []), parsed.start, parsed.end)
                window = f"[{parsed.start}, {parsed.end}]"
                reason = "" if ok else f"no span of {parsed.callee} called by {parsed.caller} starts in {window}"
                return CiteCheck(cite, ok, reason, (parsed.caller, parsed.callee))

    def _log(self, cite: str, parsed: LogCite) -> CiteCheck:
        if self._bundle.logs is None:
            return CiteCheck(cite, False, f"{LOGS_FILE} is missing from the bundle")
        svc = self._log_service.get(parsed.line)
        if svc is None:
            return CiteCheck(cite, False, f"{LOGS_FILE} has no line {parsed.line}")
        return CiteCheck(cite, True, "", (svc,) if svc else ())

    def _metric(self, cite: str, parsed: MetricCite) -> CiteCheck:
        if self._bundle.metrics is None:
            return CiteCheck(cite, False, f"{METRICS_FILE} is missing from the bundle")
        key = (parsed.service, parsed.metric)
        stamps: Sequence[int] | None = self._series.get(key)
        if stamps is None:
            stamps = self._pod_series.get(key)  # a workload's series, merged from its pods' (context.pod_series)
        if stamps is None:
            return CiteCheck(cite, False, f"no series {parsed.service}/{parsed.metric}")
        i = bisect.bisect_left(stamps, parsed.start)  # the loader sorts each series by time
        ok = i < len(stamps) and stamps[i] <= parsed.end
        return CiteCheck(cite, ok, "" if ok else f"no samples in [{parsed.start}, {parsed.end}]", (parsed.service,))

    def _change(self, cite: str, parsed: ChangeCite) -> CiteCheck:
        if self._bundle.changes is None:
            return CiteCheck(cite, False, f"{CHANGES_FILE} is missing from the bundle")
        if parsed.id not in self._changes:
            return CiteCheck(cite, False, f"no change with id {parsed.id!r}")
        svc = self._changes[parsed.id]
        return CiteCheck(cite, True, "", (svc,) if svc else ())

    def _alert(self, cite: str, parsed: AlertCite) -> CiteCheck:
        if parsed.fingerprint not in self._alerts:
            return CiteCheck(cite, False, f"no alert with fingerprint {parsed.fingerprint!r}")
        svc = self._alerts[parsed.fingerprint]
        return CiteCheck(cite, True, "", (svc,) if svc else ())

    def _edge(self, cite: str, parsed: EdgeCite) -> CiteCheck:
        topo = self._bundle.topology
        if topo is None:
            return CiteCheck(cite, False, f"{TOPOLOGY_FILE} is missing from the bundle")
        ok = topo.has_edge(parsed.source, parsed.target)
        reason = "" if ok else f"no edge {parsed.source} -> {parsed.target}"
        return CiteCheck(cite, ok, reason, (parsed.source, parsed.target))
