"""The `act` step: performs the risk gate's plan (safe actions at L2/L3, the approval request at L3).

What to do is decided by `engine/risk_gate.plan_actions` from the recorded
result alone; this step only gathers what that decision needs (the snapshot's
topology and alerts) and hands the plan to `actions/`: the safe actions through
their registry (allowlisted, quota-bound, audited one by one), the proposal as
an approval request. Shadow-mode groups act on nothing.
"""

from __future__ import annotations

import logging

from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.remediation import request_remediation
from rootward.actions.safe_handlers import SafeActionContext
from rootward.actions.safe_registry import run_safe_actions
from rootward.bundle.format import BundleError
from rootward.bundle.load import load_bundle
from rootward.domain.alert import Alert
from rootward.domain.topology import Topology
from rootward.engine.risk_gate import Incident, plan_actions
from rootward.runtime.job_state import JobState
from rootward.runtime.knowledge_snapshot import KnowledgeSnapshotter
from rootward.runtime.queue import enqueue_investigation
from rootward.settings import Settings
from rootward.store.demo_purge import INCIDENT_NOTES_SOURCE  # the knowledge-base source of filed RCAs

log = logging.getLogger("rootward.runtime.steps")


class ActStep:
    def __init__(self, settings: Settings, sessions: sessionmaker[Session], knowledge: KnowledgeSnapshotter) -> None:
        self.settings = settings
        self.sessions = sessions
        self._knowledge = knowledge

    def _context(self, investigation_id: str) -> SafeActionContext:
        def file_note(path: str, note: str) -> None:
            from rootward.knowledge.ingest import ingest_files

            ingest_files(self.sessions, INCIDENT_NOTES_SOURCE, {path: note}, None, remove_missing=False)

        return SafeActionContext(
            investigation_id=investigation_id,
            settings=self.settings.actions,
            sessions=self.sessions,
            knowledge=self._knowledge.index,
            file_note=file_note,
            requeue=enqueue_investigation,
        )

    def _incident(self, state: JobState, investigation_id: str) -> tuple[Incident, Topology | None]:
        topology: Topology | None = None
        alerts: list[Alert] = []
        try:
            if state.bundle_path is not None:
                bundle = load_bundle(state.bundle_path)
                topology, alerts = bundle.topology, bundle.alerts
        except BundleError:  # the snapshot is gone: act on the result alone (no symptom silences)
            log.warning("snapshot of %s unreadable; acting without its topology", investigation_id)
        incident = Incident(
            investigation_id=investigation_id,
            group_id=state.group_id,
            title=state.title,
            service=state.service,
            priority=state.priority,
            alerts=alerts,
        )
        return incident, topology

    def __call__(self, state: JobState) -> JobState:
        if state.acted or state.shadow:
            return state.model_copy(update={"acted": True})
        result = state.result()
        investigation_id = state.investigation_id or state.job_id
        incident, topology = self._incident(state, investigation_id)
        plan = plan_actions(result, topology, state.tier, state.severity, incident)
        safe = plan.safe_actions
        if state.source != "live":  # a simulated or replayed RCA is no knowledge about this system
            safe = tuple(a for a in safe if a.name != "route_to_km")
        done = run_safe_actions(safe, self._context(investigation_id))
        approval_id = None
        if plan.proposal is not None:
            request = plan.proposal
            with self.sessions() as session, session.begin():
                approval_id = request_remediation(
                    session,
                    request.action,
                    proposal_hash=request.proposal_hash,
                    prediction=request.prediction,
                    action_class=request.action_class,
                    investigation_id=investigation_id,
                    settings=self.settings.worldmodel,
                    ttl=self.settings.actions.approval_ttl,
                )
        return state.model_copy(update={"acted": True, "safe_actions": done, "approval_id": approval_id})
