"""Closed investigations teach the world model: a confirmed root cause is history with truth.

When a responder accepts (or corrects) an RCA, its alert group and the
confirmed root become an `IncidentRecord`, and the stored dynamics learn from
it on the stored graph, the same way `rootward graph learn` learns from
bundles. When the snapshot bundle the investigation ran on is still on disk,
its metrics and traces add the symptoms of the entities that did not alert.
Each investigation is learned once (an audit entry marks it), so a second
click does not count the incident twice. Nothing is learned when the stored
graph does not know the root: there is no edge to learn on.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.bundle.format import BundleError
from rootward.bundle.load import load_bundle
from rootward.store.alerts import AlertRow, utc
from rootward.store.audit import AuditRow, append_audit
from rootward.store.investigations import InvestigationRow
from rootward.store.worldmodel import load_dynamics, load_graph_records, save_dynamics
from rootward.worldmodel.backtest_cases import bundle_symptoms, watched_entities
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import WorldGraph
from rootward.worldmodel.history import IncidentRecord, ObservedAlert, ObservedSymptom

LEARNED = "worldmodel.learned"


def learn_from_investigation(
    sessions: sessionmaker[Session], investigation_id: str, entity: str, fault_type: str, by: str
) -> int:
    """Fold one confirmed investigation into the stored dynamics; returns the edge trials added."""
    with sessions.begin() as session:
        done = session.scalar(
            select(AuditRow.id).where(AuditRow.kind == LEARNED, AuditRow.subject == investigation_id).limit(1)
        )
        row = session.get(InvestigationRow, investigation_id)
        if done is not None or row is None or not row.group_id:
            return 0
        graph = WorldGraph.from_records(*load_graph_records(session))
        if not graph.has_entity(entity):
            return 0
        alerts = tuple(
            ObservedAlert(a.service, a.name, utc(a.starts_at), utc(a.ends_at) if a.ends_at else None)
            for a in session.scalars(select(AlertRow).where(AlertRow.group_id == row.group_id))
        )
        symptoms, watched = _telemetry(row.bundle_path, alerts)
        record = IncidentRecord(entity, fault_type, alerts, source=investigation_id, symptoms=symptoms, watched=watched)
        dynamics = Dynamics.from_records(load_dynamics(session))
        trials = dynamics.learn(graph, [record])
        save_dynamics(session, dynamics.to_records())
        append_audit(
            session,
            LEARNED,
            investigation_id,
            {
                "root": entity,
                "fault_type": fault_type,
                "alerts": len(alerts),
                "symptoms": len(symptoms),
                "edge_trials": trials,
                "by": by,
            },
        )
    return trials


def _telemetry(
    bundle_path: str | None, alerts: tuple[ObservedAlert, ...]
) -> tuple[tuple[ObservedSymptom, ...], frozenset[str]]:
    """Symptoms and watched entities from the investigation's snapshot bundle; nothing when it is gone."""
    if not bundle_path or not Path(bundle_path).exists():
        return (), frozenset()
    try:
        bundle = load_bundle(bundle_path)
    except (BundleError, OSError):
        return (), frozenset()
    return bundle_symptoms(bundle, None, alerts), watched_entities(bundle)
