"""Alerts as rootward sees them, whatever webhook they arrived through."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Literal
from urllib.parse import urlsplit

from rootward.domain.pod_names import workload_of

AlertStatus = Literal["firing", "resolved"]

# Label keys that name the affected service, in the spec's order of preference.
SERVICE_LABELS: tuple[str, ...] = ("service", "job", "app", "deployment", "instance")
# An exporter reports on others (kube-state-metrics on pods and deployments, node_exporter on its
# host, cAdvisor on containers, the blackbox exporter on its probe targets): its own name in
# `service` or `job` is where the alert came from, and the labels of what it watched say what it is about.
# A scrape job named for a Kubernetes discovery role (`kubernetes-pods`, `kubernetes-service-endpoints`,
# the Prometheus chart's defaults) says how targets were found, not which: the same holds for it.
_EXPORTER = re.compile(r"kube-state-metrics|exporter|cadvisor|kubelet|blackbox|pushgateway|^kubernetes-", re.I)
SUBJECT_LABELS: tuple[str, ...] = (
    "app",
    "deployment",
    "statefulset",
    "daemonset",
    "pod",
    "container",
    "node",
    "instance",
)


class Severity(StrEnum):
    """P0 pages a human at once; P3 is informational."""

    P0 = "P0"
    P1 = "P1"
    P2 = "P2"
    P3 = "P3"

    @property
    def rank(self) -> int:
        return int(self.value[1])


class Tier(StrEnum):
    """The action ladder: how far rootward may go for a group."""

    L0 = "L0"  # template notice only
    L1 = "L1"  # summary
    L2 = "L2"  # investigation plus safe actions
    L3 = "L3"  # remediation proposals behind human approval


def severity_from_label(label: str | None) -> Severity:
    """Map the `severity` label as the spec says; unknown values count as warnings."""
    value = (label or "").strip().lower()
    if value in ("p0", "page"):
        return Severity.P0
    if value in ("critical", "p1", "error", "high"):
        return Severity.P1
    if value in ("info", "p3", "low", "none"):
        return Severity.P3
    return Severity.P2


def service_label(labels: dict[str, str]) -> str | None:
    """The label the affected service is read from (None: no label names one).

    `service`, then `job`, `app`, `deployment`, `instance`; when that names an
    exporter or a discovery-role scrape job, the first label of what it watched
    (an app, a deployment, pod, container, node or scrape instance) that the
    alert has.
    """
    key = next((k for k in SERVICE_LABELS if labels.get(k)), None)
    if key is not None and _EXPORTER.search(labels[key]):
        return next((k for k in SUBJECT_LABELS if labels.get(k) and not _EXPORTER.search(labels[k])), key)
    return key


def service_of(labels: dict[str, str]) -> str:
    """The affected service, from the label `service_label` picks (a scrape instance without its port)."""
    key = service_label(labels)
    if key is None:
        return "unknown"
    if key == "instance":
        return _host(labels[key])
    # A Deployment's pod (both generated parts of its name) is its Deployment: replicas are one service.
    return workload_of(labels[key], ()) if key == "pod" else labels[key]


def _host(instance: str) -> str:
    """A scrape instance's host: `node-3:9100` -> `node-3`, a probe's `https://shop.example.com/` -> its host name."""
    if "://" in instance:
        return urlsplit(instance).hostname or instance
    host, _, port = instance.rpartition(":")
    if not host or not port.isdigit() or (":" in host and not host.startswith("[")):
        return instance  # no port, or a bare IPv6 address
    return host.strip("[]")


@dataclass(frozen=True)
class Alert:
    fingerprint: str
    name: str
    service: str
    severity: Severity
    status: AlertStatus
    starts_at: datetime
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    ends_at: datetime | None = None
    generator_url: str = ""
