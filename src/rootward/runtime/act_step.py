"""The `act` step: the safe actions of the action ladder (L2/L3) and the approval request (L3).

Safe actions run through the allowlisted, quota-bound runner and are audited
one by one; the top remediation proposal, when the world-model gate let it
through, becomes an approval request (approved at once only where its action
class has earned autonomy). Shadow-mode groups act on nothing.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.alertmanager import AlertmanagerClient
from rootward.actions.approvals import request_approval
from rootward.actions.autonomy_gate import approve_if_earned
from rootward.actions.safe import SafeAction, SafeActionHandler, SafeActionRunner, SilenceHandler
from rootward.domain.investigation import InvestigationResult
from rootward.runtime import safe_handlers
from rootward.runtime.job_state import JobState
from rootward.runtime.knowledge_snapshot import KnowledgeSnapshotter
from rootward.settings import Settings
from rootward.sources.bundle import load_bundle
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import append_audit
from rootward.store.worldmodel import DbPredictionLedger
from rootward.worldmodel.gate import commit_prediction

VICTIM_SILENCE_MINUTES = 30
SILENCE_CONFIDENCE = 0.7


class ActStep:
    def __init__(self, settings: Settings, sessions: sessionmaker[Session], knowledge: KnowledgeSnapshotter) -> None:
        self.settings = settings
        self.sessions = sessions
        self._knowledge = knowledge

    def _victim_silences(self, state: JobState, result: InvestigationResult) -> list[SafeAction]:
        """Silence cascade symptoms of a validated root cause, never the root's own alerts.

        Only along declared topology (not learned edges), only with confidence ≥ 0.7.
        """
        top = result.top
        if top is None or top.status != "validated" or top.confidence < SILENCE_CONFIDENCE:
            return []
        if state.bundle_path is None:
            return []
        bundle = load_bundle(state.bundle_path)
        if bundle.topology is None or top.entity not in bundle.topology.entities:
            return []
        graph = nx.DiGraph([(s, t) for s, t, _ in bundle.topology.edges()])
        root = top.entity
        dependents = nx.ancestors(graph, root) if root in graph else set()
        actions, seen = [], set()
        for alert in bundle.alerts:
            if alert.status != "firing" or alert.service == root or alert.service not in dependents:
                continue
            key = (alert.name, alert.service)
            if key in seen:
                continue
            seen.add(key)
            actions.append(
                SafeAction(
                    "silence_alert",
                    {
                        "matchers": {"alertname": alert.name, "service": alert.service},
                        "duration_minutes": VICTIM_SILENCE_MINUTES,
                    },
                    reason=f"rootward: symptom of {root} {top.fault_type} (investigation {state.job_id})",
                )
            )
        return actions

    def _safe_runner(self, investigation_id: str) -> SafeActionRunner:
        cfg = self.settings.actions
        handlers: dict[str, SafeActionHandler] = {}
        if cfg.alertmanager is not None:
            handlers["silence_alert"] = SilenceHandler(AlertmanagerClient(cfg.alertmanager))

        def audit_only(kind: str) -> SafeActionHandler:
            def handle(action: SafeAction) -> str:
                with self.sessions() as session, session.begin():
                    append_audit(
                        session,
                        f"safe_action.{kind}",
                        investigation_id,
                        {"params": action.params, "reason": action.reason},
                    )
                return action.reason or kind

            return handle

        handlers["annotate"] = audit_only("annotate")
        handlers["flag_for_human_review"] = audit_only("flag_for_human_review")
        handlers["query_km"] = safe_handlers.query_km(self._knowledge)
        handlers["route_to_km"] = safe_handlers.route_to_km(self.sessions)
        handlers["retry_task"] = safe_handlers.retry_task(self.sessions)
        return SafeActionRunner(handlers, allowlist=set(cfg.safe_allowlist), max_per_investigation=cfg.safe_quota)

    def _safe_actions(self, state: JobState, result: InvestigationResult, investigation_id: str) -> list[SafeAction]:
        """What the ladder does on its own at L2/L3 for this result."""
        top = result.top
        actions: list[SafeAction] = []
        if result.status != "validated" or (top.confidence if top else 0.0) < 0.7 or state.severity == "P0":
            actions.append(SafeAction("flag_for_human_review", reason="low confidence or page: a human should look"))
        actions += self._victim_silences(state, result)
        services = sorted({h.entity for h in result.hypotheses[:3]} | {state.service})
        query = {"query": state.title, "services": services}
        actions.append(SafeAction("query_km", query, reason="related runbooks and postmortems"))
        if result.status == "validated":
            params = {
                "investigation_id": investigation_id,
                "title": state.title,
                "service": state.service,
                "result": result.model_dump(mode="json"),
            }
            actions.append(SafeAction("route_to_km", params, reason="file the RCA for the next incident"))
        if result.status == "failed" or state.engine_failed:
            retry: dict[str, Any] = {"group_id": state.group_id, "tier": state.tier, "priority": state.priority}
            actions.append(SafeAction("retry_task", retry, reason="the investigation could not finish"))
        return actions

    def _request_approval(self, result: InvestigationResult, investigation_id: str) -> str | None:
        """The top pending proposal as an approval request; its id, or None."""
        proposal = next((p for p in result.proposals if p.pending), None)
        if proposal is None:
            return None  # one remediation proposal at a time: the top one
        with self.sessions() as session, session.begin():
            ledger = DbPredictionLedger(session)
            if ledger.get(proposal.proposal_hash) is None:
                commit_prediction(ledger, proposal.action, proposal.prediction or {})
            row = request_approval(
                session,
                proposal.action,
                ledger,
                investigation_id=investigation_id,
                settings=self.settings.worldmodel,
                ttl=self.settings.actions.approval_ttl,
            )
            if not isinstance(row, ApprovalRow):
                return None
            approve_if_earned(session, row, proposal.action_class, self.settings.worldmodel)
            return row.id

    def __call__(self, state: JobState) -> JobState:
        if state.acted or state.shadow:
            return state.model_copy(update={"acted": True})
        result = state.result()
        investigation_id = state.investigation_id or state.job_id
        done: list[str] = []
        if state.tier in ("L2", "L3"):
            for outcome in self._safe_runner(investigation_id).run(self._safe_actions(state, result, investigation_id)):
                done.append(outcome.describe())
                with self.sessions() as session, session.begin():
                    append_audit(
                        session,
                        "safe_action.result",
                        investigation_id,
                        {"action": outcome.action.name, "status": outcome.status, "detail": outcome.detail},
                    )
        approval_id = self._request_approval(result, investigation_id)
        return state.model_copy(update={"acted": True, "safe_actions": done, "approval_id": approval_id})
