"""Prometheus as a `MetricSource`: what exporters expose, read as the bundle's metric words.

The engine thinks in the bundle's metric words (`latency_p99_ms`,
`error_rate`, ...). `sources/metric_templates.py` holds PromQL templates for the
exporters most stacks run (client libraries, OpenTelemetry, Micrometer, gRPC,
cAdvisor, kube-state-metrics, node_exporter); `prometheus.metrics` adds to them
or replaces them by name. Asked about one entity, the connector finds the label
that names it (`service_labels`, or `host_labels` for a host), keeps the
templates whose series exist for it (`sources/prometheus_entities.py`), runs
them, and with `discover` also reads the raw series carrying that label, so
metrics nobody mapped are still seen. `covered_series` also says what matched
("3 of 37 templates matched for orders (job="orders"); no latency series").

Every series comes back with the exact PromQL and range that produced it,
which is what a live citation is, and a link to the query in the Prometheus
(or Grafana) UI.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import Field, SecretStr, model_validator

from rootward.domain.live import CitedSeries, EntityCoverage, EntityMetrics, TemplateMatch
from rootward.domain.telemetry import MetricSeries
from rootward.domain.topology import Entity, Topology
from rootward.sources.base import SourceUnavailable
from rootward.sources.connector import Connector
from rootward.sources.httpapi import authenticated_api
from rootward.sources.links import grafana_explore_url, prometheus_graph_url
from rootward.sources.metric_templates import MetricTemplate, Template, merge_templates
from rootward.sources.prometheus_entities import (
    EntityMatch,
    discoverable,
    escape_label_value,
    host_namespaces,
    match_entity,
    render,
)
from rootward.sources.resilience import ConnectorSettings, Guard, SourceResponseError

SOURCE = "Prometheus"
_METRIC_NAME_RE = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
_RATE_SUFFIXES = ("_total", "_count", "_sum")
MAX_RAW_SERIES = 4  # a discovered metric with more series than this is left out
DEFAULT_SERVICE_LABELS = ["service", "service_name", "app_kubernetes_io_name", "app", "k8s_app", "job"]
DEFAULT_HOST_LABELS = ["node", "kubernetes_node", "nodename", "host", "instance"]

__all__ = ["CitedSeries", "EntityMetrics", "PrometheusSettings", "PrometheusSource", "escape_label_value"]


class PrometheusSettings(ConnectorSettings):
    base_url: str = Field(description="Prometheus base URL, e.g. http://prometheus:9090 (no /api/v1).")
    service_labels: list[str] = Field(
        default_factory=lambda: list(DEFAULT_SERVICE_LABELS),
        min_length=1,
        description="Labels that may name a service, tried in order for each entity; the first whose matcher "
        "selects any series names it (`job` last: it is often the scrape job, not the service).",
    )
    host_labels: list[str] = Field(
        default_factory=lambda: list(DEFAULT_HOST_LABELS),
        description="Labels naming the host a series or target belongs to, first present wins "
        "(`instance` is matched with or without its port).",
    )
    step: float = Field(default=30.0, gt=0, description="Resolution of range queries, in seconds.")
    rate_window: str = Field(
        default="5m",
        pattern=r"^[0-9]+(ms|s|m|h)$",
        description="Range of rate() in the templates (`{window}`); at least four scrape intervals.",
    )
    metrics: dict[str, MetricTemplate | str | None] = Field(
        default_factory=dict,
        description="Templates by name, merged with the defaults: the same name replaces a default, null removes "
        "it, a new name is added (and preferred). A value is PromQL or {promql, metric, entity, signal, exporter}. "
        "`{selector}` becomes the entity's matcher, `{by}` its label name, `{service}` its escaped name.",
    )
    default_templates: bool = Field(default=True, description="Start from the built-in templates.")
    discover: bool = Field(
        default=True,
        description="Also read the raw series that carry the entity's label (counters as 5m rates, histogram "
        "buckets, *_created and *_info skipped).",
    )
    max_discovered: int = Field(default=40, ge=0, description="At most this many discovered metric names.")
    max_services: int = Field(
        default=50, gt=0, description="Asked about every service, query at most this many label values."
    )
    ui_url: str | None = Field(default=None, description="Prometheus UI for links, when not base_url.")
    grafana_url: str | None = Field(default=None, description="Grafana base URL: links open Grafana Explore.")
    grafana_datasource: str | None = Field(default=None, description="Grafana data source uid for Explore links.")
    bearer_token: SecretStr | None = Field(default=None, description="Sent as `Authorization: Bearer`.")
    username: str | None = Field(default=None, description="Basic-auth user (with `password`).")
    password: SecretStr | None = Field(default=None, description="Basic-auth password.")
    verify_tls: bool = Field(default=True, description="Verify the server's TLS certificate.")

    @model_validator(mode="before")
    @classmethod
    def _one_service_label(cls, data: Any) -> Any:
        """The older `service_label: app` still works: it is the only label tried."""
        if isinstance(data, dict) and "service_label" in data:
            data = dict(data)
            label = data.pop("service_label")
            data.setdefault("service_labels", [label])
        return data

    def templates(self) -> list[Template]:
        return merge_templates(self.metrics, self.default_templates)


@dataclass(frozen=True)
class PromSeries:
    """One result of a Prometheus range query: its labels and samples."""

    labels: dict[str, str]
    timestamps: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True)
class _Query:
    name: str  # the series' metric name
    expr: str
    template: Template | None = None


@dataclass
class _Run:
    """The bookkeeping of one entity's queries."""

    match: EntityMatch
    out: list[CitedSeries] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    produced: set[str] = field(default_factory=set)  # metric words that gave data
    results: dict[str, TemplateMatch] = field(default_factory=dict)


def discovered_query(name: str, selector: str, window: str = "5m") -> str | None:
    """PromQL for a raw discovered metric; None for histogram buckets (quantiles come from templates)."""
    if name.endswith("_bucket"):
        return None
    vector = f"{name}{{{selector}}}"
    return f"rate({vector}[{window}])" if name.endswith(_RATE_SUFFIXES) else vector


def invocation_text(expr: str, start: datetime, end: datetime, step: float) -> str:
    return f"PromQL {expr} [{_iso(start)} .. {_iso(end)}, step {step:g}s]"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_matrix(body: Any) -> list[PromSeries]:
    """The `data.result` of a range query response (resultType matrix)."""
    data = _data_of(body)
    if data.get("resultType") != "matrix":
        raise SourceResponseError(f"expected resultType 'matrix', got {data.get('resultType')!r}")
    out: list[PromSeries] = []
    for item in data.get("result") or []:
        stamps: list[int] = []
        values: list[float] = []
        for ts, raw in item.get("values") or []:
            value = float(raw)
            if math.isnan(value) or math.isinf(value):
                continue
            stamps.append(int(float(ts)))
            values.append(value)
        out.append(PromSeries(dict(item.get("metric") or {}), tuple(stamps), tuple(values)))
    return out


def _data_of(body: Any) -> Any:
    if not isinstance(body, dict) or body.get("status") != "success":
        error = body.get("error") if isinstance(body, dict) else None
        raise SourceResponseError(f"status is not success: {error or str(body)[:120]}")
    return body.get("data")


def series_name(metric: str, labels: dict[str, str], siblings: int, entity_label: str) -> str:
    """`metric` for a single result; `metric{pod="a"}` when a query returned several series."""
    if siblings <= 1:
        return metric
    keep = {k: v for k, v in sorted(labels.items()) if k not in ("__name__", "job", "instance", entity_label)}
    if not keep:
        return metric
    return metric + "{" + ",".join(f'{k}="{v}"' for k, v in keep.items()) + "}"


def topology_of_targets(body: Any, service_labels: Sequence[str], host_labels: Sequence[str]) -> Topology:
    """Entities from `/api/v1/targets`: each target's service `runs_on` the host its labels name."""
    data = _data_of(body)
    entities: dict[str, Entity] = {}
    for target in data.get("activeTargets") or []:
        labels: dict[str, str] = target.get("labels") or {}
        service = next((labels[k] for k in [*service_labels, "job"] if labels.get(k)), "")
        if not service:
            continue
        host = ""
        for key in host_labels:
            if labels.get(key):
                host = labels[key].rsplit(":", 1)[0] if key == "instance" else labels[key]
                break
        prev = entities.get(service)
        runs_on = tuple(dict.fromkeys((prev.runs_on if prev else ()) + ((host,) if host else ())))
        attrs = {"job": labels.get("job", ""), "source": "prometheus-targets"}
        entities[service] = Entity(name=service, kind="service", runs_on=runs_on, attributes=attrs)
        if host:
            entities.setdefault(host, Entity(name=host, kind="host", attributes={"source": "prometheus-targets"}))
    return Topology(entities=entities)


class PrometheusSource:
    """`MetricSource` and target-label `TopologySource` over the Prometheus HTTP API."""

    def __init__(self, settings: PrometheusSettings, *, guard: Guard | None = None) -> None:
        self.settings = settings
        self.guard = guard or Guard(SOURCE, settings)
        self.api = authenticated_api(self.guard, settings)
        self.templates = settings.templates()
        self.last_invocations: tuple[str, ...] = ()
        self._broken: dict[str, str] = {}  # template name -> the error it gave (bad PromQL is not asked again)

    # --- raw API ------------------------------------------------------------

    def query_range(self, expr: str, start: datetime, end: datetime, step: float | None = None) -> list[PromSeries]:
        params = {
            "query": expr,
            "start": f"{start.timestamp():.3f}",
            "end": f"{end.timestamp():.3f}",
            "step": f"{step or self.settings.step:g}",
        }
        return parse_matrix(self.api.get_json("/api/v1/query_range", params, what="query_range"))

    def series_labels(self, match: str, start: datetime, end: datetime) -> list[dict[str, str]]:
        params = [("match[]", match), ("start", f"{start.timestamp():.3f}"), ("end", f"{end.timestamp():.3f}")]
        data = _data_of(self.api.get_json("/api/v1/series", params, what="series"))
        return [dict(item) for item in data or []]

    def label_values(
        self, label: str, match: str | None = None, start: datetime | None = None, end: datetime | None = None
    ) -> list[str]:
        params: list[tuple[str, str]] = [("match[]", match)] if match else []
        if start is not None and end is not None:
            params += [("start", f"{start.timestamp():.3f}"), ("end", f"{end.timestamp():.3f}")]
        body = self.api.get_json(f"/api/v1/label/{label}/values", params or None, what="label values")
        return [str(v) for v in _data_of(body) or []]

    def targets_topology(self) -> Topology:
        body = self.api.get_json("/api/v1/targets", {"state": "active"}, what="targets")
        return topology_of_targets(body, self.settings.service_labels, self.settings.host_labels)

    def build_info(self) -> dict[str, str]:
        """`/api/v1/status/buildinfo`: the cheapest authenticated call, for `sources check`."""
        data = _data_of(self.api.get_json("/api/v1/status/buildinfo", what="buildinfo"))
        return {str(k): str(v) for k, v in (data or {}).items()}

    def link(self, expr: str, start: datetime, end: datetime) -> str:
        """The query in Grafana Explore when configured, else in the Prometheus graph page."""
        s = self.settings
        if s.grafana_url:
            return grafana_explore_url(s.grafana_url, s.grafana_datasource, {"expr": expr}, start, end)
        return prometheus_graph_url(s.ui_url or s.base_url, expr, start, end)

    # --- MetricSource ---------------------------------------------------------

    def series(
        self, service: str | None, start: datetime, end: datetime, metric: str | None = None
    ) -> Sequence[MetricSeries]:
        return [cited.series for cited in self.series_with_invocations(service, start, end, metric)]

    def series_with_invocations(
        self, service: str | None, start: datetime, end: datetime, metric: str | None = None
    ) -> list[CitedSeries]:
        """Like `series`, each with its PromQL and range.

        `last_invocations` afterwards lists every query that ran, including
        those that matched nothing (a "no data" finding can cite them too).
        With service None every value of the service labels (at most
        `max_services`) is asked about in turn.
        """
        if metric is not None and not self._knows(metric) and not _METRIC_NAME_RE.match(metric):
            raise SourceUnavailable(SOURCE, f"no PromQL template for metric '{metric}'")
        ran: list[str] = []
        out: list[CitedSeries] = []
        for entity in [service] if service is not None else self.services(start, end):
            found = self.covered_series(entity, "service", start, end, metric=metric)
            out += found.series
            ran += found.invocations
        self.last_invocations = tuple(dict.fromkeys(ran))
        return out

    def services(self, start: datetime, end: datetime) -> list[str]:
        """Values of the service labels (in label order), at most `max_services`."""
        seen: dict[str, None] = {}
        for label in self.settings.service_labels:
            for value in sorted(self.label_values(label, start=start, end=end)):
                seen.setdefault(value, None)
        return list(seen)[: self.settings.max_services]

    def covered_series(
        self, entity: str, kind: str, start: datetime, end: datetime, metric: str | None = None
    ) -> EntityMetrics:
        """One entity's series and what matched. Raises SourceUnavailable only when Prometheus cannot answer."""
        labels = self.settings.host_labels if kind == "host" else self.settings.service_labels
        templates = [t for t in self.templates if metric is None or metric in (t.name, t.metric)]
        match = match_entity(entity, kind, templates, labels, lambda m: self._names(m, start, end))
        run = _Run(match)
        for query in self._queries(run, metric):
            self._run_query(run, query, start, end)
        results = tuple(
            run.results.get(t.name) or TemplateMatch(t.name, t.metric, t.signal, t.exporter, t in match.matched)
            for t in match.tried
        )
        discovered = tuple(sorted({c.series.metric.split("{")[0] for c in run.out} - {t.metric for t in match.tried}))
        notes: tuple[str, ...] = ()
        if not match.selector:
            notes = (f"no series has {' or '.join(f'{label}={entity!r}' for label in labels)}",)
        coverage = EntityCoverage(
            entity,
            SOURCE,
            "host" if kind == "host" else "service",
            match.selector,
            results,
            discovered,
            len(run.out),
            notes,
        )
        return EntityMetrics(run.out, coverage, run.ran)

    def _knows(self, metric: str) -> bool:
        return any(metric in (t.name, t.metric) for t in self.templates)

    def _names(self, matchers: str, start: datetime, end: datetime) -> set[str]:
        return set(self.label_values("__name__", "{" + matchers + "}", start, end))

    def _queries(self, run: _Run, metric: str | None) -> list[_Query]:
        m = run.match
        window = self.settings.rate_window
        queries = [_Query(t.metric, render(t.promql, m.selector, m.label, m.entity, window), t) for t in m.matched]
        if metric is not None and not self._knows(metric):
            expr = discovered_query(metric, m.selector, window) if m.selector else None
            return [_Query(metric, expr)] if expr else []
        if metric is None and self.settings.discover:
            for name in discoverable(m, self.settings.max_discovered, host_namespaces(self.templates)):
                expr = discovered_query(name, m.selector, window)
                if expr is not None:
                    queries.append(_Query(name, expr))
        return queries

    def _run_query(self, run: _Run, query: _Query, start: datetime, end: datetime) -> None:
        t = query.template
        if t is not None and (t.metric in run.produced or t.name in self._broken):
            run.results[t.name] = TemplateMatch(
                t.name, t.metric, t.signal, t.exporter, True, False, self._broken.get(t.name, "")
            )
            return
        invocation = invocation_text(query.expr, start, end, self.settings.step)
        run.ran.append(invocation)
        try:
            results = [p for p in self.query_range(query.expr, start, end) if p.timestamps]
        except SourceUnavailable as exc:
            if t is None or "HTTP 4" not in exc.reason:
                raise  # Prometheus itself failing is the source's gap, not the template's
            self._broken[t.name] = exc.reason
            run.results[t.name] = TemplateMatch(t.name, t.metric, t.signal, t.exporter, True, False, exc.reason)
            return
        if t is not None:
            run.results[t.name] = TemplateMatch(t.name, t.metric, t.signal, t.exporter, True, bool(results))
            if results:
                run.produced.add(t.metric)
        elif len(results) > MAX_RAW_SERIES:
            return  # a raw metric split many ways (per CPU, per device) is no one signal of the entity
        url = self.link(query.expr, start, end)
        for prom in results:
            label = series_name(query.name, prom.labels, len(results), run.match.label)
            series = MetricSeries(run.match.entity, label, prom.timestamps, prom.values)
            run.out.append(CitedSeries(series, invocation, query.expr, url))

    def graph(self) -> Topology:
        return self.targets_topology()

    def close(self) -> None:
        self.api.close()


CONNECTOR = Connector(
    name="prometheus",
    settings=PrometheusSettings,
    description="Metrics; empty: no live metrics.",
    provides=frozenset({"metrics", "topology"}),
    build=PrometheusSource,
)
