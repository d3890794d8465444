"""Data keyed by pod (or scrape target) is read under the workload the topology knows.

A bundle exported from a store that labels by pod holds `cartservice-7d9f8b6c4-x2k9p`
where the topology, the alerts and the traces say `cartservice`; read as they
are, the pods are entities of their own with no edge to anything, and the
service the map knows has no data at all (on Nezha with pod-named metrics,
entity@1 fell from 0.679 to 0.143). Series, log lines, spans and alerts are
mapped alike. A name is mapped only when it has the shape Kubernetes gives pod
names and what is left is a known entity, or it has both generated parts of a
Deployment's pod (`domain.pod_names`). The replicas of one workload become one
series, the mean of their samples at each instant (the service's per-pod
reading); a metric cite names the workload, which the bundle's resolver finds
in its pods' series (`bundle.cites`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

import numpy as np

from rootward.context.series_resolution import run_means
from rootward.domain.alert import Alert
from rootward.domain.pod_names import workload_of
from rootward.domain.telemetry import LogRecord, MetricSeries


def series_by_workload(series: Sequence[MetricSeries], known: Collection[str]) -> list[MetricSeries]:
    """Each series under its workload's name (`workload_of`), the replicas of one workload merged."""
    groups: dict[tuple[str, str], list[MetricSeries]] = {}
    for s in series:
        groups.setdefault((workload_of(s.service, known), s.metric), []).append(s)
    out = []
    for (service, metric), members in groups.items():
        if len(members) == 1:
            only = members[0]
            out.append(only if only.service == service else replace(only, service=service))
        else:
            out.append(_merged(service, metric, members))
    return out


def _merged(service: str, metric: str, members: Sequence[MetricSeries]) -> MetricSeries:
    """One series from several replicas' samples: at each instant, the mean of those with a reading."""
    ts = np.concatenate([np.asarray(m.timestamps, dtype=np.int64) for m in members])
    vs = np.concatenate([np.asarray(m.values, dtype=float) for m in members])
    order = np.argsort(ts, kind="stable")
    ts, vs = ts[order], vs[order]
    starts = np.flatnonzero(np.r_[True, ts[1:] != ts[:-1]])
    return MetricSeries(service, metric, tuple(ts[starts].tolist()), tuple(run_means(vs, starts).tolist()))


def records_by_workload(records: Sequence[LogRecord], known: Collection[str]) -> list[LogRecord]:
    """Each log record under its workload's name, its pod kept in `pod` when the record had none."""
    names = {name: workload_of(name, known) for name in {r.service for r in records}}
    return [
        r if names[r.service] == r.service else replace(r, service=names[r.service], pod=r.pod or r.service)
        for r in records
    ]


def alerts_by_workload(alerts: Sequence[Alert], known: Collection[str]) -> list[Alert]:
    """Each alert on its workload (an alert labelled with a pod is about the service it is a replica of)."""
    out = []
    for a in alerts:
        service = workload_of(a.service, known)
        out.append(a if service == a.service else replace(a, service=service))
    return out
