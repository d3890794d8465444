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

import json
import logging
import time
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from rootward.actions.remediation import request_remediation
from rootward.actions.safe_handlers import SafeActionContext
from rootward.actions.safe_registry import run_safe_actions
from rootward.domain.incident import IncidentMeta
from rootward.engine.evidence_view import evidence_data
from rootward.engine.investigation import STAGES, initial_state, stage_risk_gate
from rootward.engine.risk_gate import Incident, plan_actions
from rootward.notify.compose import compose_notification
from rootward.notify.outbox import enqueue
from rootward.runtime.knowledge_snapshot import KnowledgeSnapshotter
from rootward.runtime.llm_charging import charged_llm_client
from rootward.runtime.pipeline import Pipeline, State, Step
from rootward.runtime.queue import enqueue_investigation
from rootward.settings import Settings
from rootward.sources.base import SourceSet
from rootward.sources.bundle import BundleError, load_bundle, parse_alerts
from rootward.sources.replay import replay_bundle
from rootward.sources.snapshot import snapshot_bundle, write_gaps
from rootward.store.alerts import AlertGroupRow, AlertRow
from rootward.store.audit import append_audit
from rootward.store.investigations import InvestigationRow, save_investigation
from rootward.store.worldmodel import load_dynamics, load_graph_records, save_proposals
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import WorldGraph

log = logging.getLogger("rootward.runtime.steps")
WORLD_TTL_S = 60.0  # how stale the stored world model may be for a prediction
# (investigation id, service) of the engine step running in this thread, for LLM cost attribution.
CURRENT_INVESTIGATION: ContextVar[tuple[str, str] | None] = ContextVar("rootward_investigation", default=None)

LOOKBACK = timedelta(minutes=60)
AFTER = timedelta(minutes=15)
INCIDENT_NOTES_SOURCE = "rootward:incidents"  # the knowledge-base source of filed RCAs


def _iso(value: datetime) -> str:
    aware = value if value.tzinfo else value.replace(tzinfo=UTC)
    return aware.isoformat().replace("+00:00", "Z")


def _payload(rows: list[AlertRow]) -> dict[str, Any]:
    """The group's alerts as one Alertmanager v4 payload, as the bundle spec stores them."""
    return {
        "version": "4",
        "status": "firing" if any(r.status == "firing" for r in rows) else "resolved",
        "receiver": "rootward",
        "groupLabels": {},
        "commonLabels": {},
        "commonAnnotations": {},
        "alerts": [
            {
                "status": r.status,
                "labels": dict(r.labels),
                "annotations": dict(r.annotations),
                "startsAt": _iso(r.starts_at),
                "endsAt": _iso(r.ends_at) if r.ends_at else "0001-01-01T00:00:00Z",
                "generatorURL": r.generator_url,
                "fingerprint": r.fingerprint,
            }
            for r in rows
        ],
    }


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
        client = charged_llm_client(settings.llm, sessions, CURRENT_INVESTIGATION.get)
        if client is not None:
            from rootward.engine.llm_reasoner import install_reasoner

            install_reasoner(settings.llm, client=client)

    # -- snapshot -------------------------------------------------------------

    def sources(self, alerts: Any) -> SourceSet:
        if self._sources is not None:
            return self._sources
        from rootward.sources.live import build_live_sources

        return build_live_sources(self.settings, alerts=alerts, sessions=self.sessions)

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
            payload = _payload(rows)
            _, parsed = parse_alerts(json.dumps([payload]))
            alerts = StaticAlerts(parsed)
            gaps = snapshot_bundle(out, meta=meta, alert_payloads=[payload], sources=self.sources(alerts))
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
        return {**state, **initial_state(state["bundle_path"], self.settings.engine.budget_limits())}

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

    def _safe_action_context(self, investigation_id: str) -> SafeActionContext:
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

    def act(self, state: State) -> State:
        if state.get("acted") or state.get("shadow"):
            return {**state, "acted": True, "safe_actions": state.get("safe_actions", [])}
        from rootward.domain.investigation import InvestigationResult

        investigation_id = state["investigation_id"]
        try:
            bundle = load_bundle(state["bundle_path"])
            topology, alerts = bundle.topology, bundle.alerts
        except BundleError:  # the snapshot is gone: act on the result alone (no symptom silences)
            log.warning("snapshot of %s unreadable; acting without its topology", investigation_id)
            topology, alerts = None, []
        incident = Incident(
            investigation_id=investigation_id,
            group_id=state["group_id"],
            title=state["title"],
            service=state["service"],
            priority=int(state.get("priority", 2)),
            alerts=alerts,
        )
        result = InvestigationResult.model_validate(state["final"])
        plan = plan_actions(result, topology, state["tier"], state["severity"], incident)
        done = run_safe_actions(plan.safe_actions, self._safe_action_context(investigation_id))
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
