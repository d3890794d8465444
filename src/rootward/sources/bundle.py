"""Incident bundles as file-backed sources: the offline twin of the live connectors.

The engine reads a bundle through the same protocols as Prometheus, Loki and
the rest, and never knows which it has. The format itself (load, validate,
write, cites) is `rootward.bundle`; this module only answers the protocols'
questions from a loaded `Bundle`, raising `SourceUnavailable` for a file the
bundle does not have.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from datetime import datetime
from operator import le
from typing import Any

from rootward.bundle.format import Bundle
from rootward.domain.alert import Alert
from rootward.domain.knowledge import Document
from rootward.domain.pod_names import spans_by_workload
from rootward.domain.telemetry import Change, LogRecord, MetricSeries, Span
from rootward.domain.topology import Topology
from rootward.sources.base import SourceSet, SourceUnavailable
from rootward.sources.call_graph import call_cites, host_cites, topology_from_edges
from rootward.sources.topology_merge import merge_topologies


def _require(value: Any, source: str, bundle: Bundle) -> Any:
    """The file's records; for a missing file the reason a live snapshot recorded, verbatim."""
    if value is None:
        reason = bundle.gap_reasons.get(source)
        if reason:
            raise SourceUnavailable(source, reason, qualified=True)
        raise SourceUnavailable(source, "source missing from bundle")
    return value


class BundleLogSource:
    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle

    def query(
        self, service: str | None, start: datetime, end: datetime, filter: str | None = None
    ) -> Sequence[LogRecord]:
        logs: list[LogRecord] = _require(self._bundle.logs, "logs.jsonl", self._bundle)
        needle = filter.lower() if filter else None
        return [
            r
            for r in logs
            if (service is None or r.service == service)
            and start <= r.ts <= end
            and (needle is None or needle in r.message.lower())
        ]


class BundleMetricSource:
    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle

    def series(
        self, service: str | None, start: datetime, end: datetime, metric: str | None = None
    ) -> Sequence[MetricSeries]:
        all_series: list[MetricSeries] = _require(self._bundle.metrics, "metrics.csv", self._bundle)
        lo, hi = int(start.timestamp()), int(end.timestamp())
        out = []
        for s in all_series:
            if (service is not None and s.service != service) or (metric is not None and s.metric != metric):
                continue
            inside = _inside(s, lo, hi)
            if inside is not None:
                out.append(inside)
        return out


def _inside(series: MetricSeries, lo: int, hi: int) -> MetricSeries | None:
    """The samples of `series` in [lo, hi], None when there are none.

    Timestamps are ascending (the loader sorts them), so the samples inside
    are one slice, found by bisection: at one sample a second a series holds
    thousands. A series out of order is filtered sample by sample, as before.
    """
    ts = series.timestamps
    if all(map(le, ts, ts[1:])):
        a, b = bisect_left(ts, lo), bisect_right(ts, hi)
        if a >= b:
            return None
        return MetricSeries(series.service, series.metric, tuple(ts[a:b]), tuple(series.values[a:b]))
    pairs = [(t, v) for t, v in zip(ts, series.values, strict=True) if lo <= t <= hi]
    if not pairs:
        return None
    return MetricSeries(series.service, series.metric, tuple(t for t, _ in pairs), tuple(v for _, v in pairs))


class BundleTraceSource:
    """`traces.jsonl` as a `TraceSource`: whole traces, as a tracing backend's trace search returns them.

    A trace is selected when one of its spans is of `service` (any span when
    None) and starts in [start, end]; of a selected trace, the spans starting in
    [start, end] are returned, in file order.
    """

    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle

    def spans(self, service: str | None, start: datetime, end: datetime) -> Sequence[Span]:
        spans: tuple[Span, ...] = _require(self._bundle.spans, "traces.jsonl", self._bundle)
        inside = [s for s in spans if start <= s.start <= end]
        if service is None:
            return inside
        traces = {s.trace_id for s in inside if s.service == service}
        return [s for s in inside if s.trace_id in traces]


class BundleChangeSource:
    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle

    def recent(self, services: Sequence[str] | None, start: datetime, end: datetime) -> Sequence[Change]:
        changes: list[Change] = _require(self._bundle.changes, "changes.json", self._bundle)
        wanted = set(services) if services is not None else None
        return sorted(
            (c for c in changes if (wanted is None or c.service in wanted) and start <= c.time <= end),
            key=lambda c: c.time,
            reverse=True,
        )


class BundleTopologySource:
    """`topology.yaml` with the call graph seen in `traces.jsonl` below it, as live Jaeger or Tempo would add.

    A bundle without the file but with spans still has a map: the calls that
    happened. Without either, the topology is unavailable.
    """

    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle
        self._graph: Topology | None = None

    def graph(self) -> Topology:
        if self._graph is None:
            declared = self._bundle.topology
            layers = [declared] if declared is not None else []
            # Pod-named spans are calls of the workloads the file and the alerts name (domain.pod_names).
            named = set(declared.entities if declared is not None else ()) | {a.service for a in self._bundle.alerts}
            spans = spans_by_workload(self._bundle.spans or (), named)
            observed = call_cites(spans) if spans else {}
            # Where a service runs, from the hosts its spans were recorded on, unless the file says.
            placed = {n for n, e in declared.entities.items() if e.runs_on} if declared is not None else set()
            hosts = host_cites(spans, skip=placed) if spans else {}
            if observed or hosts:
                layers.append(topology_from_edges(observed, observed | hosts, runs_on=hosts))
            if not layers:
                _require(None, "topology.yaml", self._bundle)
            self._graph = layers[0] if len(layers) == 1 else merge_topologies(layers)
        return self._graph


class BundleKnowledgeSource:
    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle

    def documents(self) -> Sequence[Document]:
        docs: list[Document] = _require(self._bundle.documents, "knowledge", self._bundle)
        return docs


class BundleAlertSource:
    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle

    def alerts(self) -> Sequence[Alert]:
        return self._bundle.alerts


def bundle_sources(bundle: Bundle) -> SourceSet:
    """All of a bundle's sources; a missing file raises SourceUnavailable when asked."""
    return SourceSet(
        alerts=BundleAlertSource(bundle),
        logs=BundleLogSource(bundle),
        metrics=BundleMetricSource(bundle),
        traces=BundleTraceSource(bundle),
        changes=BundleChangeSource(bundle),
        topology=BundleTopologySource(bundle),
        knowledge=BundleKnowledgeSource(bundle),
    )
