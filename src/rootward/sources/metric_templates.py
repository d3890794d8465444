"""The PromQL templates that turn what exporters expose into the bundle's metric words.

A template reads one family of metrics (the client libraries' `http_requests_total`,
OpenTelemetry's `http.server.request.duration` as Prometheus names it, node_exporter,
cAdvisor, kube-state-metrics...) and gives one metric word the engine understands
(`request_rate`, `error_rate`, `latency_p99_ms`, `cpu_usage`...). Several templates
may give the same word: for each entity the first one whose series exist wins, so a
stack that runs Micrometer and one that runs prometheus_client both get `latency_p99_ms`.

Placeholders: `{selector}` is the label matcher that names the entity
(`job="orders"`, or `instance=~"10\\.0\\.0\\.5(:[0-9]+)?"` for a host), `{by}` its label
name, `{service}` the bare entity name (escaped for a double-quoted PromQL string).
The metric names a template needs are read from the expression itself: each name
directly followed by a matcher list that holds a placeholder (`x{{selector},code="5.."}`).

User templates (`prometheus.metrics`) merge with these by name: the same name
replaces a default, `null` removes one, a new name is added, ahead of the defaults.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from rootward.domain.live import Signal

EntityKind = str  # "service" or "host"

_PLACEHOLDERS = ("{selector}", "{service}")
# A metric name followed by a matcher list that may itself hold `{selector}` / `{service}`.
_VECTOR_RE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[^{}]|\{(?:selector|service)\})*)\}")
# The bundle spec's words and the signal each one is.
_WORD_SIGNALS: dict[str, Signal] = {
    "request_rate": "traffic",
    "error_rate": "errors",
    "latency_p99_ms": "latency",
    "latency_mean_ms": "latency",
    "cpu_usage": "saturation",
    "cpu_used_ratio": "saturation",
    "memory_used_ratio": "saturation",
    "memory_bytes": "saturation",
    "restarts_total": "restarts",
    "db_connections_in_use": "saturation",
    "db_connections_max": "saturation",
    "disk_used_ratio": "saturation",
    "packet_loss_ratio": "saturation",
}


class MetricTemplate(BaseModel):
    """One template, as written in `prometheus.metrics` (or as a bare PromQL string)."""

    model_config = ConfigDict(extra="forbid")

    promql: str = Field(description="PromQL with `{selector}`, `{by}` and `{service}` placeholders.")
    metric: str = Field(default="", description="The metric word it gives (default: the template's name).")
    entity: str = Field(default="service", pattern="^(service|host)$", description="`service` or `host`.")
    signal: Signal | None = Field(default=None, description="traffic, errors, latency, saturation, restarts...")
    exporter: str = Field(default="custom", description="Which exporter or library it reads, for reports.")


@dataclass(frozen=True)
class Template:
    """A resolved template: its name, the word it gives and the metric names it needs."""

    name: str
    promql: str
    metric: str
    entity: EntityKind
    signal: Signal
    exporter: str

    @property
    def needs(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(metric name, its placeholder matchers) for each vector the template reads about the entity."""
        return required_vectors(self.promql)


def required_vectors(promql: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    out: list[tuple[str, tuple[str, ...]]] = []
    for name, body in _VECTOR_RE.findall(promql):
        matchers = tuple(m for m in _split_matchers(body) if any(p in m for p in _PLACEHOLDERS))
        if matchers and (name, matchers) not in out:
            out.append((name, matchers))
    return tuple(out)


def _split_matchers(body: str) -> list[str]:
    """`a="x,y",{selector}` -> [`a="x,y"`, `{selector}`]: commas inside quotes stay."""
    parts: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for ch in body:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    parts.append("".join(current).strip())
    return [p for p in parts if p]


def resolve(name: str, spec: MetricTemplate | str, base: Template | None = None) -> Template:
    """A user template; one that replaces a default keeps the default's word, signal and entity unless it says."""
    t = spec if isinstance(spec, MetricTemplate) else MetricTemplate(promql=spec)
    given = t.model_fields_set if isinstance(spec, MetricTemplate) else set()
    metric = t.metric or (base.metric if base else name)
    signal: Signal = t.signal or (base.signal if base else _WORD_SIGNALS.get(metric, "other"))
    entity = t.entity if "entity" in given or base is None else base.entity
    exporter = t.exporter if "exporter" in given or base is None else base.exporter
    return Template(name, t.promql, metric, entity, signal, exporter)


def merge_templates(user: dict[str, MetricTemplate | str | None], defaults: bool = True) -> list[Template]:
    """User templates first (in their order), then the defaults they did not replace or remove."""
    by_name = {t.name: t for t in DEFAULT_TEMPLATES}
    out = [resolve(name, spec, by_name.get(name)) for name, spec in user.items() if spec is not None]
    if defaults:
        out += [t for t in DEFAULT_TEMPLATES if t.name not in user]
    return out


# --- the defaults -------------------------------------------------------------------------

_5XX = ("status", "code", "status_code")
_GRPC_SERVER_ERRORS = "Unknown|DeadlineExceeded|Internal|Unavailable|DataLoss"
_GRPC_SERVER_ERROR_CODES = "2|4|13|14|15"  # the same codes as numbers (OpenTelemetry's rpc.grpc.status_code)
_LOCAL_FS = 'fstype!~"tmpfs|ramfs|overlay|squashfs|nsfs|fuse.*"'


def _rate(name: str, extra: str = "") -> str:
    return f"rate({name}{{{{selector}}{extra}}}[{{window}}])"


def _ratio_of_errors(total: str, errors: list[str]) -> str:
    """Errors over all requests, 0 (not absent) when there are none, so a first error is a step."""
    errs = " or ".join(errors)
    all_ = f"sum by ({{by}}) ({total})"
    return f"(sum by ({{by}}) ({errs}) or {all_} * 0) / clamp_min({all_}, 1e-9)"


def _p99(bucket: str, scale: str = "1000 * ") -> str:
    return f"{scale}histogram_quantile(0.99, sum by (le, {{by}}) ({_rate(bucket)}))"


def _mean(prefix: str, scale: str = "1000 * ") -> str:
    total, count = _rate(prefix + "_sum"), _rate(prefix + "_count")
    return f"{scale}sum by ({{by}}) ({total}) / clamp_min(sum by ({{by}}) ({count}), 1e-9)"


def _http(exporter: str, key: str, count: str, prefix: str, status: tuple[str, ...], ms: bool) -> list[Template]:
    """Rate, 5xx ratio, p99 and mean latency of one HTTP server histogram (or counter + histogram)."""
    scale = "" if ms else "1000 * "
    errors = [_rate(count, f',{label}=~"5.."') for label in status]
    return [
        Template(
            f"{key}_request_rate", f"sum by ({{by}}) ({_rate(count)})", "request_rate", "service", "traffic", exporter
        ),
        Template(
            f"{key}_error_rate", _ratio_of_errors(_rate(count), errors), "error_rate", "service", "errors", exporter
        ),
        Template(
            f"{key}_latency_p99", _p99(prefix + "_bucket", scale), "latency_p99_ms", "service", "latency", exporter
        ),
        Template(f"{key}_latency_mean", _mean(prefix, scale), "latency_mean_ms", "service", "latency", exporter),
    ]


def _grpc(exporter: str, key: str, count: str, bucket: str, code: str, errors: str, ms: bool) -> list[Template]:
    scale = "" if ms else "1000 * "
    return [
        Template(
            f"{key}_request_rate", f"sum by ({{by}}) ({_rate(count)})", "request_rate", "service", "traffic", exporter
        ),
        Template(
            f"{key}_error_rate",
            _ratio_of_errors(_rate(count), [_rate(count, f',{code}=~"{errors}"')]),
            "error_rate",
            "service",
            "errors",
            exporter,
        ),
        Template(f"{key}_latency_p99", _p99(bucket, scale), "latency_p99_ms", "service", "latency", exporter),
    ]


def _service(name: str, promql: str, metric: str, signal: Signal, exporter: str) -> Template:
    return Template(name, promql, metric, "service", signal, exporter)


def _host(name: str, promql: str, metric: str, exporter: str = "node_exporter") -> Template:
    return Template(name, promql, metric, "host", "saturation", exporter)


def _defaults() -> tuple[Template, ...]:
    lib, otel, k8s = "client library", "OpenTelemetry", "kube-state-metrics"
    out: list[Template] = []
    # Request, error, latency: the client libraries, Micrometer, OpenTelemetry semconv (new, then old), gRPC.
    out += _http(lib, "http", "http_requests_total", "http_request_duration_seconds", _5XX, ms=False)
    out += _http(
        "Micrometer",
        "micrometer_http",
        "http_server_requests_seconds_count",
        "http_server_requests_seconds",
        ("status",),
        ms=False,
    )
    out += _http(
        otel,
        "otel_http",
        "http_server_request_duration_seconds_count",
        "http_server_request_duration_seconds",
        ("http_response_status_code",),
        ms=False,
    )
    out += _http(
        otel,
        "otel_http_v1",
        "http_server_duration_milliseconds_count",
        "http_server_duration_milliseconds",
        ("http_status_code",),
        ms=True,
    )
    out += _grpc(
        lib,
        "grpc",
        "grpc_server_handled_total",
        "grpc_server_handling_seconds_bucket",
        "grpc_code",
        _GRPC_SERVER_ERRORS,
        ms=False,
    )
    out += _grpc(
        otel,
        "otel_rpc",
        "rpc_server_call_duration_seconds_count",
        "rpc_server_call_duration_seconds_bucket",
        "rpc_grpc_status_code",
        _GRPC_SERVER_ERROR_CODES,
        ms=False,
    )
    out += _grpc(
        otel,
        "otel_rpc_v1",
        "rpc_server_duration_milliseconds_count",
        "rpc_server_duration_milliseconds_bucket",
        "rpc_grpc_status_code",
        _GRPC_SERVER_ERROR_CODES,
        ms=True,
    )
    # Availability: the scrape itself.
    out.append(_service("scrape_up", "min by ({by}) (up{{selector}})", "up", "availability", "Prometheus"))
    # Containers (cAdvisor through the kubelet): by the service label where relabelling adds it, else by container.
    cad = "cAdvisor"
    out += [
        _service(
            "container_cpu",
            f"sum by ({{by}}) ({_rate('container_cpu_usage_seconds_total')})",
            "cpu_usage",
            "saturation",
            cad,
        ),
        _service(
            "container_cpu_by_name",
            'sum(rate(container_cpu_usage_seconds_total{container="{service}"}[{window}]))',
            "cpu_usage",
            "saturation",
            cad,
        ),
        _service(
            "container_memory",
            "sum by ({by}) (container_memory_working_set_bytes{{selector}})",
            "memory_bytes",
            "saturation",
            cad,
        ),
        _service(
            "container_memory_by_name",
            'sum(container_memory_working_set_bytes{container="{service}"})',
            "memory_bytes",
            "saturation",
            cad,
        ),
        _service(
            "container_cpu_throttling",
            'sum(rate(container_cpu_cfs_throttled_periods_total{container="{service}"}[{window}]))'
            ' / clamp_min(sum(rate(container_cpu_cfs_periods_total{container="{service}"}[{window}])), 1e-9)',
            "cpu_throttled_ratio",
            "saturation",
            cad,
        ),
    ]
    # Processes (every Prometheus client library exports these for its own process), JVM and pools.
    out += [
        _service(
            "process_cpu", f"sum by ({{by}}) ({_rate('process_cpu_seconds_total')})", "cpu_usage", "saturation", lib
        ),
        _service(
            "process_memory",
            "sum by ({by}) (process_resident_memory_bytes{{selector}})",
            "memory_bytes",
            "saturation",
            lib,
        ),
        _service(
            "jvm_heap",
            'sum by ({by}) (jvm_memory_used_bytes{{selector},area="heap"})',
            "heap_used_bytes",
            "saturation",
            "Micrometer",
        ),
        _service(
            "hikari_active",
            "sum by ({by}) (hikaricp_connections_active{{selector}})",
            "db_connections_in_use",
            "saturation",
            "Micrometer",
        ),
        _service(
            "hikari_max",
            "sum by ({by}) (hikaricp_connections_max{{selector}})",
            "db_connections_max",
            "saturation",
            "Micrometer",
        ),
    ]
    # Kubernetes object state.
    out += [
        _service(
            "kube_restarts",
            "sum by ({by}) (kube_pod_container_status_restarts_total{{selector}})",
            "restarts_total",
            "restarts",
            k8s,
        ),
        _service(
            "kube_restarts_by_name",
            'sum(kube_pod_container_status_restarts_total{container="{service}"})',
            "restarts_total",
            "restarts",
            k8s,
        ),
        _service(
            "kube_oom_killed",
            'sum(kube_pod_container_status_last_terminated_reason{container="{service}",reason="OOMKilled"})',
            "oom_killed_containers",
            "restarts",
            k8s,
        ),
        _service(
            "kube_crashloop",
            'sum(kube_pod_container_status_waiting_reason{container="{service}",reason="CrashLoopBackOff"})',
            "crashloop_containers",
            "restarts",
            k8s,
        ),
        _service(
            "kube_unavailable_replicas",
            'sum(kube_deployment_status_replicas_unavailable{deployment="{service}"})',
            "unavailable_replicas",
            "availability",
            k8s,
        ),
    ]
    # Hosts (node_exporter).
    out += [
        # A share of the host's CPUs, not cores: 1.2 busy cores is saturation on one CPU and
        # background on a 2-core CI runner, and only a share can be held against its limit.
        _host(
            "node_cpu",
            'sum(rate(node_cpu_seconds_total{{selector},mode!~"idle|iowait|steal"}[{window}]))'
            ' / count(node_cpu_seconds_total{{selector},mode="idle"})',
            "cpu_used_ratio",
        ),
        _host(
            "node_memory",
            "1 - sum(node_memory_MemAvailable_bytes{{selector}}) / sum(node_memory_MemTotal_bytes{{selector}})",
            "memory_used_ratio",
        ),
        _host(
            "node_disk_space",
            f"max(1 - node_filesystem_avail_bytes{{{{selector}},{_LOCAL_FS}}}"
            f" / node_filesystem_size_bytes{{{{selector}},{_LOCAL_FS}}})",
            "disk_used_ratio",
        ),
        _host(
            "node_network_drops",
            "sum(rate(node_network_receive_drop_total{{selector}}[{window}]))"
            " + sum(rate(node_network_transmit_drop_total{{selector}}[{window}]))",
            "packets_dropped_per_s",
        ),
    ]
    return tuple(out)


DEFAULT_TEMPLATES: tuple[Template, ...] = _defaults()


def exporters() -> list[tuple[str, list[str]]]:
    """(exporter, [metric words]) of the defaults, for docs and `sources check`."""
    out: dict[str, list[str]] = {}
    for t in DEFAULT_TEMPLATES:
        words = out.setdefault(t.exporter, [])
        if t.metric not in words:
            words.append(t.metric)
    return list(out.items())
