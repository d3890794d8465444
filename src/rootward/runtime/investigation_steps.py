"""The steps a worker runs for an alert group, from snapshot to notification.

snapshot → the engine's stages (context … risk gate) → record → act → notify.
Each step is `state -> state` over JSON, so the runtime checkpoints between
them and a resumed worker continues where the dead one stopped. The steps
that write (record, act, notify) are idempotent on the job id: a step
re-run after a crash between its write and its checkpoint finds its own
earlier write instead of doing it twice.

Degrade, never block: a failed engine still yields a recorded, notified
(template) result; a dead source is a gap in the snapshot; a channel that is
down keeps the message in the outbox.
"""

from __future__ import annotations

import logging
import time
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import networkx as nx
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.alertmanager import AlertmanagerClient
from rootward.actions.approvals import request_approval
from rootward.actions.autonomy_gate import approve_if_earned
from rootward.actions.safe import SafeAction, SafeActionHandler, SafeActionRunner, SilenceHandler
from rootward.bundle.load import load_bundle
from rootward.bundle.write import write_gaps
from rootward.domain.alert import Alert, Severity
from rootward.domain.incident import IncidentMeta
from rootward.engine.evidence_view import evidence_data
from rootward.engine.investigation import STAGES, initial_state, stage_risk_gate
from rootward.llm.client import CallRecord
from rootward.notify.compose import compose_notification
from rootward.notify.outbox import enqueue
from rootward.runtime import safe_handlers
from rootward.runtime.knowledge_snapshot import KnowledgeSnapshotter
from rootward.runtime.pipeline import Pipeline, State, Step
from rootward.settings import Settings
from rootward.sources.base import SourceSet
from rootward.sources.replay import replay_bundle
from rootward.sources.snapshot import snapshot_bundle
from rootward.store.alerts import AlertGroupRow, AlertRow, utc
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import append_audit
from rootward.store.investigations import InvestigationRow, save_investigation
from rootward.store.llm_calls import LLMCallRow, record_llm_call
from rootward.store.worldmodel import DbPredictionLedger, load_dynamics, load_graph_records, save_proposals
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.gate import ProposedAction, commit_prediction
from rootward.worldmodel.graph import WorldGraph

log = logging.getLogger("rootward.runtime.steps")
WORLD_TTL_S = 60.0  # how stale the stored world model may be for a prediction
# (investigation id, service) of the engine step running in this thread, for LLM cost attribution.
CURRENT_INVESTIGATION: ContextVar[tuple[str, str] | None] = ContextVar("rootward_investigation", default=None)

LOOKBACK = timedelta(minutes=60)
AFTER = timedelta(minutes=15)
VICTIM_SILENCE_MINUTES = 30


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


class InvestigationSteps:
    """Binds the steps to one process's settings, database and sources."""

    def __init__(self, settings: Settings, sessions: sessionmaker[Session], sources: SourceSet | None = None) -> None:
        self.settings = settings
        self.sessions = sessions
        self._sources = sources
        self._knowledge = KnowledgeSnapshotter(sessions)
        self._world: tuple[float, WorldGraph | None, Dynamics | None] | None = None
        if settings.llm.provider != "none":
            from rootward.engine.llm_reasoner import install_reasoner

            install_reasoner(settings.llm, on_call=self._record_llm_call, calls_today=self._llm_calls_today)

    # -- snapshot -------------------------------------------------------------

    def sources(self, alerts: Any) -> SourceSet:
        if self._sources is not None:
            return self._sources
        from rootward.sources.live import build_live_sources
        from rootward.sources.stored_changes import StoredChangeSource

        return build_live_sources(
            self.settings.connector_sections(),
            self.settings.topology,
            recorded_changes=StoredChangeSource(self.sessions),
            alerts=alerts,
        )

    def snapshot(self, state: State) -> State:
        with self.sessions() as session:
            group = session.get(AlertGroupRow, state["group_id"])
            if group is None:
                raise LookupError(f"alert group {state['group_id']} does not exist")
            rows = list(
                session.scalars(select(AlertRow).where(AlertRow.group_id == group.id).order_by(AlertRow.starts_at))
            )
            group_info = {"service": group.service, "severity": group.severity, "tier": group.tier}
        fired = min((r.starts_at for r in rows), default=datetime.now(UTC))
        fired = fired if fired.tzinfo else fired.replace(tzinfo=UTC)
        names = sorted({r.name for r in rows})
        title = f"{', '.join(names[:3]) or 'alert'} on {group_info['service']}"
        meta = IncidentMeta(
            id=f"inc-{state['job_id']}".lower(),
            title=title,
            fired_at=fired,
            window_start=fired - LOOKBACK,
            window_end=max(datetime.now(UTC), fired + timedelta(minutes=1)),
        )
        replayed = replay_bundle((r.annotations for r in rows), self.settings.replay)
        if replayed is not None:
            out, gaps = replayed, {}
        else:
            out = Path(self.settings.data_dir) / "snapshots" / str(state["job_id"])
            alerts = [_alert(r) for r in rows]
            gaps = snapshot_bundle(out, meta=meta, alerts=alerts, sources=self.sources(StaticAlerts(alerts)))
            services = sorted({r.service for r in rows})
            query = " ".join([title, *sorted({str(r.annotations.get("summary", "")) for r in rows})])
            if gaps.get("knowledge") and self._knowledge.write(out, query, services):
                del gaps["knowledge"]
                write_gaps(out, gaps)
        team = next((str(r.labels.get("team")) for r in rows if r.labels.get("team")), None)
        shadow = self.settings.notify.shadow.covers(group_info["service"], team)
        return {
            **state,
            "bundle_path": str(out),
            "title": title,
            "service": group_info["service"],
            "severity": group_info["severity"],
            "tier": group_info["tier"],
            "shadow": shadow,
            "alert_names": [f"{r.name} on {r.service} ({r.severity}, {r.status}, x{r.count})" for r in rows],
            "snapshot_gaps": gaps,
        }

    # -- engine ---------------------------------------------------------------

    def start_engine(self, state: State) -> State:
        return {**state, **initial_state(state["bundle_path"])}

    def _record_llm_call(self, call: CallRecord) -> None:
        """Attribute a model call's tokens and cost to the investigation and service running it."""
        running = CURRENT_INVESTIGATION.get()
        if running is None:
            return
        with self.sessions() as session, session.begin():
            record_llm_call(session, call, running[0], running[1])

    def _llm_calls_today(self, provider: str) -> int:
        start = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        with self.sessions() as session:
            return int(
                session.scalar(
                    select(func.count())
                    .select_from(LLMCallRow)
                    .where(LLMCallRow.provider == provider, LLMCallRow.at >= start)
                )
                or 0
            )

    def world_model(self) -> tuple[WorldGraph | None, Dynamics | None]:
        """The stored graph (claims still valid) and learned dynamics, re-read at most once a minute."""
        now = time.monotonic()
        if self._world is None or now - self._world[0] > WORLD_TTL_S:
            with self.sessions() as session:
                graph = WorldGraph.from_records(*load_graph_records(session))
                dynamics = Dynamics.from_records(load_dynamics(session))
            self._world = (now, graph if len(graph) else None, dynamics if dynamics.stats else None)
        return self._world[1], self._world[2]

    def engine_step(self, name: str, fn: Any) -> Step:
        def run(state: State) -> State:
            if state.get("engine_failed"):
                return state
            token = CURRENT_INVESTIGATION.set((str(state["job_id"]), str(state.get("service", ""))))
            try:
                return dict(fn(state))
            except Exception as exc:  # the incident must not be lost to an engine bug
                log.exception("engine stage %s failed for job %s", name, state.get("job_id"))
                gaps = [*state.get("gaps", []), f"engine failed at {name}: {type(exc).__name__}: {exc}"]
                return {**state, "engine_failed": True, "gaps": gaps}
            finally:
                CURRENT_INVESTIGATION.reset(token)

        return Step(name, run)

    # -- record ---------------------------------------------------------------

    def _result(self, state: State) -> dict[str, Any]:
        result = state.get("result")
        if result and not state.get("engine_failed"):
            return dict(result)
        bundle_id = f"inc-{state['job_id']}".lower()
        return {
            "bundle": bundle_id,
            "status": "failed",
            "hypotheses": [],
            "claims": [],
            "evidence": {},
            "gaps": state.get("gaps", []),
            "timing": {"first_hypothesis_ms": None, "total_ms": 0},
        }

    def record(self, state: State) -> State:
        result = self._result(state)
        investigation_id = str(state["job_id"])
        with self.sessions() as session, session.begin():
            if session.get(InvestigationRow, investigation_id) is None:
                data: dict[str, Any] = {}
                if not state.get("engine_failed"):
                    from rootward.domain.investigation import InvestigationResult

                    data = evidence_data(InvestigationResult.model_validate(result), load_bundle(state["bundle_path"]))
                save_investigation(
                    session,
                    result,
                    title=state["title"],
                    service=state["service"],
                    severity=state["severity"],
                    tier=state["tier"],
                    shadow=bool(state.get("shadow")),
                    job_id=investigation_id,
                    group_id=state["group_id"],
                    evidence_data=data,
                    investigation_id=investigation_id,
                    bundle_path=state["bundle_path"],
                )
                if result.get("proposals"):
                    save_proposals(session, investigation_id, result["proposals"])
                append_audit(
                    session,
                    "investigation.recorded",
                    investigation_id,
                    {"status": result.get("status"), "group_id": state["group_id"]},
                )
        self._keep_findings(investigation_id, state.get("findings") or [])
        return {**state, "investigation_id": investigation_id, "final": result}

    def _keep_findings(self, investigation_id: str, findings: list[dict[str, Any]]) -> None:
        """The specialists' typed findings, queryable per hypothesis (the console's "tested by")."""
        from rootward.engine.memory import finding_from_dict
        from rootward.store.findings import DbWorkingMemory

        with self.sessions() as session:
            memory = DbWorkingMemory(session, investigation_id)
            if memory.findings():
                return  # written before a crash: never twice
            for item in findings:
                memory.add(finding_from_dict(item))

    # -- act ------------------------------------------------------------------

    def _victim_silences(self, state: State, result: dict[str, Any]) -> list[SafeAction]:
        """Silence cascade symptoms of a validated root cause, never the root's own alerts.

        Only along declared topology (not learned edges), only with confidence ≥ 0.7.
        """
        top = (result.get("hypotheses") or [{}])[0]
        if top.get("status") != "validated" or float(top.get("confidence", 0)) < 0.7:
            return []
        bundle = load_bundle(state["bundle_path"])
        if bundle.topology is None or top.get("entity") not in bundle.topology.entities:
            return []
        graph = nx.DiGraph([(s, t) for s, t, _ in bundle.topology.edges()])
        root = str(top["entity"])
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
                    reason=f"rootward: symptom of {root} {top.get('fault_type')} (investigation {state['job_id']})",
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

    def act(self, state: State) -> State:
        if state.get("acted") or state.get("shadow"):
            return {**state, "acted": True, "safe_actions": state.get("safe_actions", [])}
        result = state["final"]
        investigation_id = state["investigation_id"]
        done: list[str] = []
        if state["tier"] in ("L2", "L3"):
            top = (result.get("hypotheses") or [{}])[0]
            actions: list[SafeAction] = []
            if (
                result.get("status") != "validated"
                or float(top.get("confidence", 0)) < 0.7
                or state["severity"] == "P0"
            ):
                actions.append(
                    SafeAction("flag_for_human_review", reason="low confidence or page: a human should look")
                )
            actions += self._victim_silences(state, result)
            services = sorted({str(h.get("entity")) for h in (result.get("hypotheses") or [])[:3]} | {state["service"]})
            actions.append(
                SafeAction(
                    "query_km",
                    {"query": state["title"], "services": services},
                    reason="related runbooks and postmortems",
                )
            )
            if result.get("status") == "validated":
                actions.append(
                    SafeAction(
                        "route_to_km",
                        {
                            "investigation_id": investigation_id,
                            "title": state["title"],
                            "service": state["service"],
                            "result": result,
                        },
                        reason="file the RCA for the next incident",
                    )
                )
            if result.get("status") == "failed" or state.get("engine_failed"):
                actions.append(
                    SafeAction(
                        "retry_task",
                        {"group_id": state["group_id"], "tier": state["tier"], "priority": state.get("priority", 2)},
                        reason="the investigation could not finish",
                    )
                )
            for outcome in self._safe_runner(investigation_id).run(actions):
                done.append(outcome.describe())
                with self.sessions() as session, session.begin():
                    append_audit(
                        session,
                        "safe_action.result",
                        investigation_id,
                        {"action": outcome.action.name, "status": outcome.status, "detail": outcome.detail},
                    )
        approval_id = None
        for proposal in result.get("proposals") or []:
            if proposal.get("status") != "pending_approval":
                continue
            action = ProposedAction.model_validate(proposal["action"])
            with self.sessions() as session, session.begin():
                ledger = DbPredictionLedger(session)
                if ledger.get(proposal["proposal_hash"]) is None:
                    commit_prediction(ledger, action, proposal.get("prediction") or {})
                row = request_approval(
                    session,
                    action,
                    ledger,
                    investigation_id=investigation_id,
                    settings=self.settings.worldmodel,
                    ttl=self.settings.actions.approval_ttl,
                )
                if isinstance(row, ApprovalRow):
                    approval_id = row.id
                    approve_if_earned(session, row, proposal.get("action_class"), self.settings.worldmodel)
            break  # one remediation proposal at a time: the top one
        return {**state, "acted": True, "safe_actions": done, "approval_id": approval_id}

    # -- notify ---------------------------------------------------------------

    def channels(self) -> list[str]:
        notify = self.settings.notify
        names = [name for name, cfg in (("slack", notify.slack), ("matrix", notify.matrix)) if cfg is not None]
        return names + [w.name for w in notify.webhooks]

    def notify(self, state: State) -> State:
        if state.get("shadow"):
            return {**state, "notified": []}
        note = compose_notification(
            state["final"],
            title=state["title"],
            service=state["service"],
            tier=state["tier"],
            severity=state["severity"],
            investigation_id=state["investigation_id"],
            console_url=self.settings.notify.console_url,
            alerts=state.get("alert_names"),
            safe_actions=state.get("safe_actions"),
            proposals=state["final"].get("proposals"),
            approval_id=state.get("approval_id"),
        )
        channels = self.channels()
        with self.sessions() as session, session.begin():
            enqueue(session, note, channels, key=f"investigation:{state['investigation_id']}")
        return {**state, "notified": channels}

    def pipeline(self) -> Pipeline:
        steps = [Step("snapshot", self.snapshot), Step("start_engine", self.start_engine)]
        steps += [
            self.engine_step(name, partial(stage_risk_gate, world=self.world_model) if name == "risk_gate" else fn)
            for name, fn in STAGES
        ]
        steps += [Step("record", self.record), Step("act", self.act), Step("notify", self.notify)]
        pipeline = Pipeline(steps)
        assert pipeline.names == step_names()
        return pipeline


def step_names() -> tuple[str, ...]:
    """The investigation pipeline's step names, without building sources."""
    return ("snapshot", "start_engine", *(name for name, _ in STAGES), "record", "act", "notify")
