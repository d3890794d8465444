"""Prometheus as a `MetricSource`: rootward metric names mapped to PromQL templates.

The engine thinks in the bundle's metric words (`latency_p99_ms`,
`error_rate`, ...). Each has a configurable PromQL template in which
`{selector}` becomes the label matcher of the service (`service="payment"`)
and `{service}` the bare, escaped service name. Asked for all metrics of a
service, the connector runs every template and also discovers the raw series
carrying the service label through `/api/v1/series`, so metrics nobody
mapped are still seen.

Every series comes back with the exact PromQL and range that produced it
(`series_with_invocations`), which is what a live citation is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import Field, SecretStr

from rootward.domain.telemetry import MetricSeries
from rootward.domain.topology import Entity, Topology
from rootward.sources.base import SourceUnavailable
from rootward.sources.connector import Connector
from rootward.sources.httpapi import authenticated_api
from rootward.sources.resilience import ConnectorSettings, Guard, SourceResponseError

SOURCE = "Prometheus"
_METRIC_NAME_RE = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
_RATE_SUFFIXES = ("_total", "_count", "_sum")


def default_templates() -> dict[str, str]:
    """The bundle spec's metric words over the usual exporters' metric names."""
    return {
        "request_rate": "sum by ({by}) (rate(http_requests_total{{selector}}[5m]))",
        "error_rate": 'sum by ({by}) (rate(http_requests_total{{selector},status=~"5.."}[5m]))'
        " / clamp_min(sum by ({by}) (rate(http_requests_total{{selector}}[5m])), 1e-9)",
        "latency_p99_ms": "1000 * histogram_quantile(0.99, "
        "sum by (le, {by}) (rate(http_request_duration_seconds_bucket{{selector}}[5m])))",
        "cpu_usage": "sum by ({by}) (rate(container_cpu_usage_seconds_total{{selector}}[5m]))",
        "memory_bytes": "sum by ({by}) (container_memory_working_set_bytes{{selector}})",
        "restarts_total": "sum by ({by}) (kube_pod_container_status_restarts_total{{selector}})",
    }


class PrometheusSettings(ConnectorSettings):
    base_url: str = Field(description="Prometheus base URL, e.g. http://prometheus:9090 (no /api/v1).")
    service_label: str = Field(default="service", description="Label whose value is the service name.")
    step: float = Field(default=30.0, gt=0, description="Resolution of range queries, in seconds.")
    metrics: dict[str, str] = Field(
        default_factory=default_templates,
        description="rootward metric name → PromQL template. `{selector}` becomes "
        '`<service_label>="<service>"`, `{service}` the escaped service name, `{by}` the service label '
        "(write `sum by ({by}) (...)` so one query answers for all services).",
    )
    discover: bool = Field(
        default=True,
        description="When asked for all metrics of a service, also query the raw series found by "
        "/api/v1/series for it (counters as 5m rates, histogram buckets skipped).",
    )
    max_discovered: int = Field(default=40, ge=0, description="At most this many discovered metric names.")
    max_services: int = Field(
        default=50, gt=0, description="Asked about every service, query at most this many label values."
    )
    bearer_token: SecretStr | None = Field(default=None, description="Sent as `Authorization: Bearer`.")
    username: str | None = Field(default=None, description="Basic-auth user (with `password`).")
    password: SecretStr | None = Field(default=None, description="Basic-auth password.")
    verify_tls: bool = Field(default=True, description="Verify the server's TLS certificate.")
    host_labels: list[str] = Field(
        default_factory=lambda: ["node", "kubernetes_node", "nodename", "host", "instance"],
        description="Target labels naming the host a target runs on, first present wins (`instance` loses its port).",
    )


@dataclass(frozen=True)
class PromSeries:
    """One result of a Prometheus range query: its labels and samples."""

    labels: dict[str, str]
    timestamps: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True)
class CitedSeries:
    """A metric series with the query that produced it, for evidence."""

    series: MetricSeries
    invocation: str


@dataclass(frozen=True)
class _Query:
    name: str  # the series' metric name
    expr: str
    service: str | None  # None: the results carry the service label


def escape_label_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render_template(template: str, service_label: str, service: str | None) -> str:
    """Fill `{selector}`, `{service}` and `{by}`; PromQL's own braces stay untouched.

    With service None the selector matches every service (`service=~".+"`).
    """
    if service is None:
        selector = f'{service_label}=~".+"'
        escaped = ".+"
    else:
        escaped = escape_label_value(service)
        selector = f'{service_label}="{escaped}"'
    return template.replace("{selector}", selector).replace("{service}", escaped).replace("{by}", service_label)


def spans_services(template: str) -> bool:
    """Whether one query of `template` answers for every service: it keeps the label via `{by}`."""
    return "{by}" in template and "{service}" not in template


def discovered_query(name: str, service_label: str, service: str | None) -> str | None:
    """PromQL for a raw discovered metric; None for histogram buckets (quantiles come from templates)."""
    if name.endswith("_bucket"):
        return None
    matcher = f'{service_label}=~".+"' if service is None else f'{service_label}="{escape_label_value(service)}"'
    selector = f"{name}{{{matcher}}}"
    if name.endswith(_RATE_SUFFIXES):
        return f"rate({selector}[5m])"
    return selector


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
            if math.isnan(value):
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


def series_name(metric: str, labels: dict[str, str], siblings: int, service_label: str) -> str:
    """`metric` for a single result; `metric{pod="a"}` when a query returned several series."""
    if siblings <= 1:
        return metric
    keep = {k: v for k, v in sorted(labels.items()) if k not in ("__name__", service_label)}
    if not keep:
        return metric
    return metric + "{" + ",".join(f'{k}="{v}"' for k, v in keep.items()) + "}"


def topology_of_targets(body: Any, service_label: str, host_labels: Sequence[str]) -> Topology:
    """Entities from `/api/v1/targets`: each target's service `runs_on` the host its labels name."""
    data = _data_of(body)
    entities: dict[str, Entity] = {}
    for target in data.get("activeTargets") or []:
        labels: dict[str, str] = target.get("labels") or {}
        service = labels.get(service_label) or labels.get("job")
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
        self.last_invocations: tuple[str, ...] = ()

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

    def label_values(self, label: str) -> list[str]:
        data = _data_of(self.api.get_json(f"/api/v1/label/{label}/values", what="label values"))
        return [str(v) for v in data or []]

    def targets_topology(self) -> Topology:
        body = self.api.get_json("/api/v1/targets", {"state": "active"}, what="targets")
        return topology_of_targets(body, self.settings.service_label, self.settings.host_labels)

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

        For one service every template and discovered metric is one query.
        For all services (service None) a template with `{by}` is one query
        grouped by the service label; other templates run once per service
        label value (at most `max_services`); raw discovery is skipped.
        """
        out: list[CitedSeries] = []
        ran: list[str] = []
        for query in self._queries(service, start, end, metric):
            results = self.query_range(query.expr, start, end)
            invocation = invocation_text(query.expr, start, end, self.settings.step)
            ran.append(invocation)
            by_service: dict[str, list[PromSeries]] = {}
            for prom in results:
                owner = query.service or prom.labels.get(self.settings.service_label)
                if owner and prom.timestamps:
                    by_service.setdefault(owner, []).append(prom)
            for owner, proms in by_service.items():
                for prom in proms:
                    label = series_name(query.name, prom.labels, len(proms), self.settings.service_label)
                    out.append(CitedSeries(MetricSeries(owner, label, prom.timestamps, prom.values), invocation))
        self.last_invocations = tuple(dict.fromkeys(ran))
        return out

    def graph(self) -> Topology:
        return self.targets_topology()

    def _services(self) -> list[str]:
        values = self.label_values(self.settings.service_label)
        return sorted(values)[: self.settings.max_services]

    def _queries(self, service: str | None, start: datetime, end: datetime, metric: str | None) -> list[_Query]:
        label = self.settings.service_label
        templates = self.settings.metrics
        if metric is not None:
            if metric in templates:
                return self._template_queries(metric, templates[metric], service)
            if not _METRIC_NAME_RE.match(metric):
                raise SourceUnavailable(SOURCE, f"no PromQL template for metric '{metric}'")
            expr = discovered_query(metric, label, service)
            return [_Query(metric, expr, service)] if expr else []
        queries = [q for name, t in templates.items() for q in self._template_queries(name, t, service)]
        if service is not None and self.settings.discover and self.settings.max_discovered:
            match = f'{{{label}="{escape_label_value(service)}"}}'
            names = sorted({s.get("__name__", "") for s in self.series_labels(match, start, end)} - {""})
            picked = 0
            for name in names:
                expr = discovered_query(name, label, service)
                if expr is None:
                    continue
                if picked >= self.settings.max_discovered:
                    break
                queries.append(_Query(name, expr, service))
                picked += 1
        return queries

    def _template_queries(self, name: str, template: str, service: str | None) -> list[_Query]:
        label = self.settings.service_label
        if service is not None:
            return [_Query(name, render_template(template, label, service), service)]
        if spans_services(template):
            return [_Query(name, render_template(template, label, None), None)]
        return [_Query(name, render_template(template, label, svc), svc) for svc in self._services()]

    def close(self) -> None:
        self.api.close()


CONNECTOR = Connector(
    name="prometheus",
    settings=PrometheusSettings,
    description="Metrics; empty: no live metrics.",
    provides=frozenset({"metrics", "topology"}),
    build=PrometheusSource,
)
