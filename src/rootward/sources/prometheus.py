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
from rootward.sources.httpapi import HttpApi
from rootward.sources.resilience import ConnectorSettings, Guard, SourceResponseError

SOURCE = "Prometheus"
_METRIC_NAME_RE = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
_RATE_SUFFIXES = ("_total", "_count", "_sum")


def default_templates() -> dict[str, str]:
    """The bundle spec's metric words over the usual exporters' metric names."""
    return {
        "request_rate": "sum(rate(http_requests_total{{selector}}[5m]))",
        "error_rate": 'sum(rate(http_requests_total{{selector},status=~"5.."}[5m]))'
        " / clamp_min(sum(rate(http_requests_total{{selector}}[5m])), 1e-9)",
        "latency_p99_ms": "1000 * histogram_quantile(0.99, "
        "sum by (le) (rate(http_request_duration_seconds_bucket{{selector}}[5m])))",
        "cpu_usage": "sum(rate(container_cpu_usage_seconds_total{{selector}}[5m]))",
        "memory_bytes": "sum(container_memory_working_set_bytes{{selector}})",
        "restarts_total": "sum(kube_pod_container_status_restarts_total{{selector}})",
    }


class PrometheusSettings(ConnectorSettings):
    base_url: str = Field(description="Prometheus base URL, e.g. http://prometheus:9090 (no /api/v1).")
    service_label: str = Field(default="service", description="Label whose value is the service name.")
    step: float = Field(default=30.0, gt=0, description="Resolution of range queries, in seconds.")
    metrics: dict[str, str] = Field(
        default_factory=default_templates,
        description="rootward metric name → PromQL template. `{selector}` becomes "
        '`<service_label>="<service>"`, `{service}` the escaped service name.',
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


def escape_label_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render_template(template: str, service_label: str, service: str) -> str:
    """Fill `{selector}` and `{service}`; PromQL's own braces stay untouched."""
    escaped = escape_label_value(service)
    return template.replace("{selector}", f'{service_label}="{escaped}"').replace("{service}", escaped)


def discovered_query(name: str, service_label: str, service: str) -> str | None:
    """PromQL for a raw discovered metric; None for histogram buckets (quantiles come from templates)."""
    if name.endswith("_bucket"):
        return None
    selector = f'{name}{{{service_label}="{escape_label_value(service)}"}}'
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
        headers = {}
        if settings.bearer_token is not None:
            headers["Authorization"] = f"Bearer {settings.bearer_token.get_secret_value()}"
        auth = None
        if settings.username is not None:
            auth = (settings.username, settings.password.get_secret_value() if settings.password else "")
        self.api = HttpApi(self.guard, settings.base_url, headers=headers, auth=auth, verify=settings.verify_tls)
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
        """Like `series`, each with its PromQL and range; also kept in `last_invocations`."""
        services = [service] if service is not None else self._services()
        out: list[CitedSeries] = []
        for svc in services:
            for name, expr in self._queries(svc, start, end, metric):
                results = self.query_range(expr, start, end)
                invocation = invocation_text(expr, start, end, self.settings.step)
                for prom in results:
                    if not prom.timestamps:
                        continue
                    label = series_name(name, prom.labels, len(results), self.settings.service_label)
                    out.append(CitedSeries(MetricSeries(svc, label, prom.timestamps, prom.values), invocation))
        self.last_invocations = tuple(dict.fromkeys(c.invocation for c in out))
        return out

    def graph(self) -> Topology:
        return self.targets_topology()

    def _services(self) -> list[str]:
        values = self.label_values(self.settings.service_label)
        return sorted(values)[: self.settings.max_services]

    def _queries(self, service: str, start: datetime, end: datetime, metric: str | None) -> list[tuple[str, str]]:
        label = self.settings.service_label
        templates = self.settings.metrics
        if metric is not None:
            if metric in templates:
                return [(metric, render_template(templates[metric], label, service))]
            if not _METRIC_NAME_RE.match(metric):
                raise SourceUnavailable(SOURCE, f"no PromQL template for metric '{metric}'")
            expr = discovered_query(metric, label, service)
            return [(metric, expr)] if expr else []
        queries = [(name, render_template(t, label, service)) for name, t in templates.items()]
        if self.settings.discover and self.settings.max_discovered:
            match = f'{{{label}="{escape_label_value(service)}"}}'
            names = sorted({s.get("__name__", "") for s in self.series_labels(match, start, end)} - {""})
            picked = 0
            for name in names:
                expr = discovered_query(name, label, service)
                if expr is None:
                    continue
                if picked >= self.settings.max_discovered:
                    break
                queries.append((name, expr))
                picked += 1
        return queries

    def close(self) -> None:
        self.api.close()
