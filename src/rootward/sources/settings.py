"""The sources' part of the config file: the connector table and the two plain sections.

`CONNECTORS` is the one table of live connectors. `settings.py` gives each
entry an optional top-level section named after it, and `sources/live.py`
builds the configured ones, in this order, which is also the order of
authority when several answer the same protocol: logs from Loki before
Kubernetes, changes from GitHub before Kubernetes rollouts, topology from
Kubernetes before the calls seen in traces (Jaeger, Tempo) before Prometheus
targets.
"""

from __future__ import annotations

from typing import Any

from rootward.sources import github, jaeger, kubernetes, loki, prometheus, tempo
from rootward.sources.connector import Connector
from rootward.sources.replay import ReplaySettings
from rootward.sources.resilience import ConnectorSettings
from rootward.sources.topology_file import TopologySettings

# Each entry has its own settings type; the table holds them side by side.
CONNECTORS: tuple[Connector[Any], ...] = (
    loki.CONNECTOR,
    github.CONNECTOR,
    kubernetes.CONNECTOR,
    jaeger.CONNECTOR,
    tempo.CONNECTOR,
    prometheus.CONNECTOR,
)

__all__ = ["CONNECTORS", "Connector", "ConnectorSettings", "ReplaySettings", "TopologySettings"]
