"""The first step of a live investigation: freeze the alert group's data into a bundle.

Everything the engine will read (alerts, logs, metrics, changes, topology,
the relevant runbooks) is written once under `data_dir/snapshots/<job>`, or
taken from a replayed bundle; a source that is down becomes a named gap in
the snapshot, never a failed step.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.bundle.write import write_gaps
from rootward.context.window import fired_at_of
from rootward.domain.alert import Alert, Severity
from rootward.domain.incident import IncidentMeta
from rootward.runtime.job_state import JobState
from rootward.runtime.knowledge_snapshot import KnowledgeSnapshotter
from rootward.settings import Settings
from rootward.sources.base import SourceSet
from rootward.sources.replay import replay_bundle
from rootward.sources.snapshot import snapshot_bundle
from rootward.store.alerts import AlertGroupRow, AlertRow, utc

LOOKBACK = timedelta(minutes=60)

# The sources a snapshot reads, given the group's alerts (live connectors, or a fixed set in tests).
SourcesFor = Callable[[Any], SourceSet]


def _iso(value: datetime) -> str:
    aware = value if value.tzinfo else value.replace(tzinfo=UTC)
    return aware.isoformat().replace("+00:00", "Z")


def _alert(row: AlertRow) -> Alert:
    """The stored alert as the domain record the snapshot writes into `alerts.json`."""
    return Alert(
        fingerprint=row.fingerprint,
        name=row.name,
        service=row.service,
        severity=Severity(row.severity),
        status="resolved" if row.status == "resolved" else "firing",
        starts_at=utc(row.starts_at),
        labels={str(k): str(v) for k, v in row.labels.items()},
        annotations={str(k): str(v) for k, v in row.annotations.items()},
        ends_at=utc(row.ends_at) if row.ends_at else None,
        generator_url=row.generator_url,
    )


class StaticAlerts:
    """The group's alerts as an AlertSource."""

    def __init__(self, alerts: list[Any]) -> None:
        self._alerts = alerts

    def alerts(self) -> list[Any]:
        return self._alerts


class GroupSnapshot:
    """The `snapshot` step, bound to one process's settings, database and sources."""

    def __init__(
        self,
        settings: Settings,
        sessions: sessionmaker[Session],
        sources: SourcesFor,
        knowledge: KnowledgeSnapshotter,
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        self._sources = sources
        self._knowledge = knowledge

    def _group(self, group_id: str) -> tuple[dict[str, str], list[AlertRow]]:
        with self.sessions() as session:
            group = session.get(AlertGroupRow, group_id)
            if group is None:
                raise LookupError(f"alert group {group_id} does not exist")
            rows = list(
                session.scalars(select(AlertRow).where(AlertRow.group_id == group.id).order_by(AlertRow.starts_at))
            )
            return {"service": group.service, "severity": group.severity, "tier": group.tier}, rows

    def _write(self, state: JobState, rows: list[AlertRow], meta: IncidentMeta) -> tuple[Path, dict[str, str], str]:
        """The snapshot bundle's directory, the gaps of the sources that could not be read, and where it came from."""
        replayed = replay_bundle((r.annotations for r in rows), self.settings.replay)
        if replayed is not None:
            return replayed, {}, self.settings.replay.source_of(replayed)
        out = Path(self.settings.data_dir) / "snapshots" / str(state.job_id)
        alerts = [_alert(r) for r in rows]
        gaps = snapshot_bundle(out, meta=meta, alerts=alerts, sources=self._sources(StaticAlerts(alerts)))
        services = sorted({r.service for r in rows})
        query = " ".join([meta.title, *sorted({str(r.annotations.get("summary", "")) for r in rows})])
        if gaps.get("knowledge") and self._knowledge.write(out, query, services):
            del gaps["knowledge"]
            write_gaps(out, gaps)
        return out, gaps, "live"

    def __call__(self, state: JobState) -> JobState:
        group, rows = self._group(state.group_id)
        now = datetime.now(UTC)
        fired = fired_at_of((r.starts_at for r in rows), now)  # an implausible start cannot overflow the window
        names = sorted({r.name for r in rows})
        title = f"{', '.join(names[:3]) or 'alert'} on {group['service']}"
        meta = IncidentMeta(
            id=f"inc-{state.job_id}".lower(),
            title=title,
            fired_at=fired,
            window_start=fired - LOOKBACK,
            window_end=max(now, fired + timedelta(minutes=1)),
        )
        out, gaps, source = self._write(state, rows, meta)
        team = next((str(r.labels.get("team")) for r in rows if r.labels.get("team")), None)
        return state.model_copy(
            update={
                "bundle_path": str(out),
                "title": title,
                "service": group["service"],
                "severity": group["severity"],
                "tier": group["tier"],
                "shadow": self.settings.notify.shadow.covers(group["service"], team),
                "alert_names": [f"{r.name} on {r.service} ({r.severity}, {r.status}, x{r.count})" for r in rows],
                "snapshot_gaps": gaps,
                "source": source,
            }
        )
