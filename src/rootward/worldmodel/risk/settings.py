"""The `worldmodel.risk:` section: which PromQL feeds each check, thresholds, horizons and the schedule.

Every query is a list, so an estate with two exporters for the same thing
(node-exporter and a cloud agent) lists both; each result series is one
candidate entry. `threshold` is where a fill check breaks, in the query's
own unit (the defaults are ratios, 1.0 = full).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

_FS = 'fstype!~"tmpfs|overlay|squashfs|ramfs"'


class RiskQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expr: str = Field(description="PromQL; every result series is assessed on its own.")
    threshold: float | None = Field(default=None, description="Fill checks: the value at which it breaks.")


def default_queries() -> dict[str, list[RiskQuery]]:
    return {
        "disk": [
            RiskQuery(
                expr=f"1 - node_filesystem_avail_bytes{{{_FS}}} / node_filesystem_size_bytes{{{_FS}}}", threshold=1.0
            )
        ],
        "inodes": [
            RiskQuery(expr=f"1 - node_filesystem_files_free{{{_FS}}} / node_filesystem_files{{{_FS}}}", threshold=1.0)
        ],
        "memory": [
            RiskQuery(
                expr='container_memory_working_set_bytes{container!=""} / on (namespace, pod, container) '
                'container_spec_memory_limit_bytes{container!=""} > 0',
                threshold=1.0,
            ),
            RiskQuery(expr="1 - node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes", threshold=1.0),
        ],
        "saturation": [
            RiskQuery(expr='1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[5m]))', threshold=0.95)
        ],
        "errors": [RiskQuery(expr='sum by (service) (rate(http_requests_total{status=~"5.."}[5m]))')],
        "requests": [RiskQuery(expr="sum by (service) (rate(http_requests_total[5m]))")],
        "certificate": [RiskQuery(expr="probe_ssl_earliest_cert_expiry")],
        "restarts": [RiskQuery(expr="kube_pod_container_status_restarts_total")],
    }


class RiskSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(default=True, description="Run the daily risk report in `serve` when Prometheus is set.")
    interval_s: float = Field(default=86400.0, gt=0, description="Seconds between two reports (daily).")
    lookback_s: float = Field(
        default=3 * 86400.0, gt=0, description="History read per series (the 72 h burn window needs 3 days)."
    )
    step_s: float = Field(default=300.0, gt=0, description="Resolution of the range queries.")
    horizon_s: float = Field(default=7 * 86400.0, gt=0, description="Crossings further away are left out.")
    certificate_horizon_s: float = Field(default=30 * 86400.0, gt=0, description="How far ahead certificates count.")
    slo: float = Field(default=0.999, gt=0.0, lt=1.0, description="Availability objective for the burn rate.")
    slo_period_s: float = Field(default=30 * 86400.0, gt=0, description="The SLO's budget period.")
    min_restarts: int = Field(default=3, ge=1, description="Restarts in the lookback that make an entry.")
    top: int = Field(default=10, ge=1, description="Entries in the chat digest.")
    entity_labels: list[str] = Field(
        default_factory=lambda: ["service", "app", "container", "pod", "node", "instance", "job"],
        description="Labels naming a series' entity, first present wins (`instance` loses its port).",
    )
    queries: dict[str, list[RiskQuery]] = Field(
        default_factory=default_queries,
        description="Check (disk, inodes, memory, saturation, errors, requests, certificate, restarts) → queries.",
    )
