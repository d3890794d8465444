"""The live `SourceSet`: every connector the configuration names, and nothing else.

A section left out of the config is a source left out of the set (None), which
the engine reports as a named gap ("no metrics source configured"). The
connectors come from one table (`sources/settings.CONNECTORS`), in its order:
each configured one is built once and joins every protocol it provides. Logs
combine Loki with Kubernetes events and pod health; changes combine the ones
CI/CD recorded through `POST /api/v1/changes` (passed in by the caller, who
owns the database) with GitHub deployments and Kubernetes rollouts; spans
combine Jaeger and Tempo; topology merges the topology file, Kubernetes, the
call graph seen in traces and Prometheus targets, in that order of authority.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeVar

from rootward.domain.alert import Alert
from rootward.sources.base import (
    AlertSource,
    ChangeSource,
    KnowledgeSource,
    LogSource,
    MetricSource,
    SourceSet,
    TopologySource,
    TraceSource,
)
from rootward.sources.combined import (
    CombinedChangeSource,
    CombinedLogSource,
    CombinedMetricSource,
    CombinedTraceSource,
)
from rootward.sources.connector import Provides
from rootward.sources.resilience import ConnectorSettings
from rootward.sources.settings import CONNECTORS
from rootward.sources.topology_file import TopologyFileSource, TopologySettings
from rootward.sources.topology_merge import MergedTopologySource

P = TypeVar("P")
PROTOCOLS: dict[Provides, type] = {
    "logs": LogSource,
    "metrics": MetricSource,
    "changes": ChangeSource,
    "topology": TopologySource,
    "traces": TraceSource,
}


class StaticAlerts:
    """The alerts of the group under investigation, as an `AlertSource`."""

    def __init__(self, alerts: Sequence[Alert] = ()) -> None:
        self._alerts = tuple(alerts)

    def alerts(self) -> Sequence[Alert]:
        return self._alerts


def connector_sources(
    sections: Mapping[str, ConnectorSettings], wanted: Collection[Provides] = tuple(PROTOCOLS)
) -> dict[Provides, list[tuple[str, Any]]]:
    """`{protocol: [(connector name, source)]}` of the configured connectors, in the table's order.

    Only connectors that provide one of the `wanted` protocols are built; a connector that
    claims a protocol it does not implement is a programming error (TypeError).
    """
    provided: dict[Provides, list[tuple[str, Any]]] = {kind: [] for kind in PROTOCOLS}
    for connector in CONNECTORS:
        section = sections.get(connector.name)
        if section is None or not connector.provides & set(wanted):
            continue
        source = connector.source(section)
        if source is None:
            continue
        for kind in sorted(connector.provides):
            if not isinstance(source, PROTOCOLS[kind]):
                raise TypeError(f"connector {connector.name!r} provides {kind}: {type(source).__name__} does not")
            provided[kind].append((connector.name, source))
    return provided


def _one_or_combined(parts: Sequence[P], combine: Callable[[Sequence[P]], P]) -> P | None:
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else combine(parts)


def build_live_sources(
    sections: Mapping[str, ConnectorSettings],
    topology: TopologySettings,
    *,
    recorded_changes: ChangeSource | None = None,
    alerts: AlertSource | None = None,
    knowledge: KnowledgeSource | None = None,
) -> SourceSet:
    """Sources of the configured connector `sections` (`Settings.connector_sections()`)."""
    provided = connector_sources(sections)
    logs: list[LogSource] = [source for _, source in provided["logs"]]
    metrics: list[MetricSource] = [source for _, source in provided["metrics"]]
    traces: list[TraceSource] = [source for _, source in provided["traces"]]
    changes: list[ChangeSource] = [recorded_changes] if recorded_changes is not None else []
    changes += [source for _, source in provided["changes"]]
    layers: list[tuple[str, TopologySource]] = []
    if topology.file is not None:
        layers.append(("file", TopologyFileSource(topology.file)))
    for name, source in provided["topology"]:
        if topology.layers_from(name):
            layers.append((name, source))
    return SourceSet(
        alerts=alerts or StaticAlerts(),
        logs=_one_or_combined(logs, CombinedLogSource),
        metrics=_one_or_combined(metrics, CombinedMetricSource),
        changes=_one_or_combined(changes, CombinedChangeSource),
        topology=MergedTopologySource(layers) if layers else None,
        knowledge=knowledge,
        traces=_one_or_combined(traces, CombinedTraceSource),
    )
