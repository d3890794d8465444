"""The live `SourceSet`: every connector the configuration names, and nothing else.

A section left out of the config is a source left out of the set (None), which
the engine reports as a named gap ("no metrics source configured"). Logs
combine Loki with Kubernetes events and pod health; changes combine the ones
CI/CD recorded through `POST /api/v1/changes` with GitHub deployments and
Kubernetes rollouts; topology merges the topology file, Kubernetes and
Prometheus targets, in that order of authority.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.alert import Alert
from rootward.settings import Settings
from rootward.sources.base import (
    AlertSource,
    ChangeSource,
    KnowledgeSource,
    LogSource,
    MetricSource,
    SourceSet,
    TopologySource,
)
from rootward.sources.combined import CombinedChangeSource, CombinedLogSource
from rootward.sources.github import GitHubDeploymentSource
from rootward.sources.kubernetes import KubernetesSource
from rootward.sources.loki import LokiSource
from rootward.sources.prometheus import PrometheusSource
from rootward.sources.stored_changes import StoredChangeSource
from rootward.sources.topology_file import TopologyFileSource
from rootward.sources.topology_merge import MergedTopologySource
from rootward.store.db import make_engine, make_session_factory


class StaticAlerts:
    """The alerts of the group under investigation, as an `AlertSource`."""

    def __init__(self, alerts: Sequence[Alert] = ()) -> None:
        self._alerts = tuple(alerts)

    def alerts(self) -> Sequence[Alert]:
        return self._alerts


def build_live_sources(
    settings: Settings,
    *,
    alerts: AlertSource | None = None,
    sessions: sessionmaker[Session] | None = None,
    knowledge: KnowledgeSource | None = None,
) -> SourceSet:
    """Connectors of the configured sections; `sessions` reads recorded changes (default: settings' DB)."""
    prometheus = PrometheusSource(settings.prometheus) if settings.prometheus else None
    kubernetes = KubernetesSource(settings.kubernetes) if settings.kubernetes else None

    log_parts: list[LogSource] = []
    if settings.loki is not None:
        log_parts.append(LokiSource(settings.loki))
    if kubernetes is not None:
        log_parts.append(kubernetes)
    logs: LogSource | None = None
    if len(log_parts) == 1:
        logs = log_parts[0]
    elif log_parts:
        logs = CombinedLogSource(log_parts)

    if sessions is None:
        sessions = make_session_factory(make_engine(settings.database_url))
    change_parts: list[ChangeSource] = [StoredChangeSource(sessions)]
    if settings.github is not None and settings.github.repos:
        change_parts.append(GitHubDeploymentSource(settings.github))
    if kubernetes is not None:
        change_parts.append(kubernetes)
    changes: ChangeSource = change_parts[0] if len(change_parts) == 1 else CombinedChangeSource(change_parts)

    layers: list[tuple[str, TopologySource]] = []
    if settings.topology.file is not None:
        layers.append(("file", TopologyFileSource(settings.topology.file)))
    if kubernetes is not None and settings.topology.from_kubernetes:
        layers.append(("kubernetes", kubernetes))
    if prometheus is not None and settings.topology.from_prometheus_targets:
        layers.append(("prometheus", prometheus))
    topology = MergedTopologySource(layers) if layers else None

    metrics: MetricSource | None = prometheus
    return SourceSet(
        alerts=alerts or StaticAlerts(),
        logs=logs,
        metrics=metrics,
        changes=changes,
        topology=topology,
        knowledge=knowledge,
    )
