"""Small hand-built incidents for the ranking core: a `Context` from a few anomalies, log signals and changes.

Every value is made in the test that uses it, so a reader sees the whole
incident next to what the ranker concluded from it.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

from rootward.context.anomaly import Anomaly
from rootward.context.assemble import AlertItem, Context
from rootward.context.changes import ChangeItem
from rootward.context.log_signals import LogSignal
from rootward.context.topology import Subgraph, TopologyEdge
from rootward.context.window import IncidentWindow
from rootward.domain.evidence import EvidenceRef

FIRED_AT = datetime(2026, 11, 2, 14, 30, tzinfo=UTC)
ONSET = FIRED_AT - timedelta(minutes=2)
ONSET_S = int(ONSET.timestamp())


def anomaly(
    service: str,
    family: str,
    *,
    metric: str | None = None,
    score: float = 40.0,
    direction: str = "up",
    baseline: float = 1.0,
    after: float = 4.0,
    peak: float | None = None,
    starts_s: int = 0,
    shape: str = "step",
) -> Anomaly:
    """A series of `service` that moved `direction`, `starts_s` seconds after the incident's onset."""
    metric = metric or f"{family}_usage"
    onset = ONSET_S + starts_s
    cite = f"metrics.csv:{service}/{metric}@{onset}-{onset + 600}"
    return Anomaly(
        service=service,
        metric=metric,
        family=family,  # type: ignore[arg-type]
        direction=direction,  # type: ignore[arg-type]
        score=score,
        baseline=baseline,
        after=after,
        peak=after if peak is None else peak,
        onset=onset,
        start=onset,
        end=onset + 600,
        evidence=EvidenceRef("metric", cite, f"{metric} {baseline} -> {after}"),
        shape=shape,  # type: ignore[arg-type]
    )


def _line_of(service: str, template: str) -> int:
    """A stable line number per signal, so the same incident built twice cites the same lines."""
    return 100 + zlib.crc32(f"{service}\n{template}".encode()) % 90_000


def log(
    service: str,
    template: str,
    *,
    onset_count: int = 40,
    severity: str = "error",
    new: bool = True,
    example: str = "",
) -> LogSignal:
    """A failure template of `service` that is new (or surging) since the onset."""
    line = _line_of(service, template)
    return LogSignal(
        service=service,
        template=template,
        count=onset_count,
        baseline_count=0 if new else 1,
        onset_count=onset_count,
        is_new=new,
        is_surge=not new,
        severity=severity,
        failure_words=True,
        first_ts=ONSET + timedelta(seconds=5),
        evidence=EvidenceRef("log", f"logs.jsonl:{line}", template),
        example=example or template,
    )


def change(service: str, *, kind: str = "deploy", minutes_before: float = 5, change_id: str = "") -> ChangeItem:
    """A change to `service` this many minutes before the onset (negative: after it)."""
    seconds = int(minutes_before * 60)
    change_id = change_id or f"{kind}-{service}"
    return ChangeItem(
        id=change_id,
        kind=kind,
        service=service,
        time=ONSET - timedelta(seconds=seconds),
        version="v2",
        summary=f"{kind} of {service}",
        seconds_before_onset=seconds,
        evidence=EvidenceRef("change", f"changes.json:{change_id}", f"{kind} of {service}"),
    )


def alert(service: str, name: str = "HighErrorRate") -> AlertItem:
    fingerprint = f"{service}-{name}".lower()
    return AlertItem(
        fingerprint=fingerprint,
        name=name,
        service=service,
        severity="critical",
        starts_at=FIRED_AT,
        evidence=EvidenceRef("alert", f"alerts.json:{fingerprint}", f"{name} on {service}"),
    )


def incident(
    *,
    kinds: dict[str, str],
    edges: Sequence[tuple[str, str, str]] = (),
    alerting: Sequence[str],
    anomalies: Iterable[Anomaly] = (),
    logs: Iterable[LogSignal] = (),
    changes: Iterable[ChangeItem] = (),
    silent: Iterable[str] = (),
    aliases: dict[str, tuple[str, ...]] | None = None,
) -> Context:
    """A context over `kinds` (entity -> kind) and `edges` (dependent, dependency, relation).

    Every entity has telemetry except those in `silent` (an external API, a host nobody scrapes).
    """
    anomalies, logs, changes = list(anomalies), list(logs), list(changes)
    no_data = set(silent)
    topology = Subgraph(
        focus=list(alerting),
        entities=list(kinds),
        kinds=dict(kinds),
        edges=[
            TopologyEdge(source=s, target=t, relation=r, evidence=EvidenceRef("topology", f"topology.yaml:{s}->{t}"))
            for s, t, r in edges
        ],
        hops=2,
        aliases=aliases or {},
    )
    window = IncidentWindow(
        fired_at=FIRED_AT,
        start=FIRED_AT - timedelta(minutes=5),
        end=FIRED_AT + timedelta(minutes=10),
        baseline_start=FIRED_AT - timedelta(minutes=65),
        baseline_end=FIRED_AT - timedelta(minutes=5),
        onset=ONSET,
    )
    return Context(
        bundle="small-incident",
        title="a small incident",
        window=window,
        alerts=[alert(s) for s in alerting],
        alerting_services=list(alerting),
        topology=topology,
        has_topology=bool(edges),
        telemetry={e: ["metrics", "logs"] for e in kinds if e not in no_data},
        anomalies=anomalies,
        logs=logs,
        changes=changes,
    )
