"""The live pipeline end to end in-process: alerts accepted by the router, a job,
the snapshot of (here: bundle-backed) sources, the engine, record, act, notify."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from rootward.bundle.load import load_bundle
from rootward.engine.dependencies import EngineDeps
from rootward.engine.state import EngineState
from rootward.runtime.intake import accept_alerts
from rootward.runtime.investigation_steps import InvestigationSteps, step_names
from rootward.runtime.job_state import JobState
from rootward.settings import load_settings
from rootward.sources.bundle import bundle_sources
from rootward.store.approvals import ApprovalRow
from rootward.store.audit import verify_chain
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import InvestigationRow
from rootward.store.jobs import Job
from rootward.store.migrate import upgrade
from rootward.store.outbox import OutboxRow
from tests.conftest import EXAMPLES

BUNDLE = EXAMPLES / "shop-connection-pool-exhaustion-00"


def _run(steps: InvestigationSteps, start: dict[str, object]) -> JobState:
    state = JobState.model_validate(start)
    for step in steps.pipeline().steps:
        state = JobState.load(json.loads(step.run(state).model_dump_json()))  # what a resumed worker loads
    return state


@pytest.fixture
def env(tmp_path: Path):  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'rw.db'}"
    upgrade(url)
    sessions = make_session_factory(make_engine(url))
    settings = load_settings(
        data_dir=tmp_path,
        database={"url": url},
        intake={"auth": "none"},
        notify={"webhooks": [{"name": "pager", "url": "http://127.0.0.1:9/hook", "secret": "s"}]},
    )
    bundle = load_bundle(BUNDLE)
    accepted = accept_alerts(sessions, bundle.alerts, source="alertmanager", settings=settings.router)
    with sessions() as s:
        jobs = list(s.scalars(select(Job)))
    return settings, sessions, bundle, accepted, jobs


def test_group_is_snapshotted_investigated_recorded_and_notified(env) -> None:  # type: ignore[no-untyped-def]
    settings, sessions, bundle, accepted, jobs = env
    assert jobs, "the router queued no investigation"
    job = next(j for j in jobs if j.tier in ("L1", "L2"))
    steps = InvestigationSteps(settings, sessions, sources=bundle_sources(bundle))
    assert steps.pipeline().names == step_names()
    state = _run(steps, {"job_id": job.id, "group_id": job.group_id, "tier": job.tier, "priority": job.priority})

    assert state.bundle_path is not None
    snapshot = load_bundle(state.bundle_path)
    assert snapshot.missing in ([], ["traces.jsonl"]) and len(snapshot.logs or []) > 0  # older examples: no traces
    assert state.result().status in ("validated", "inconclusive")
    assert state.result().hypotheses, "the engine produced no hypothesis on the snapshot"
    with sessions() as s:
        row = s.get(InvestigationRow, job.id)
        assert row is not None and row.group_id == job.group_id and row.evidence_data
        from rootward.store.findings import DbWorkingMemory

        findings = DbWorkingMemory(s, job.id).findings()
        assert findings and {f.specialist for f in findings} >= {"metrics", "logs"}
        outbox = list(s.scalars(select(OutboxRow)))
        assert [o.channel for o in outbox] == ["pager"]
        assert outbox[0].payload["investigation_id"] == job.id
        assert verify_chain(s).ok


def test_rerunning_the_writing_steps_after_a_crash_writes_nothing_twice(env) -> None:  # type: ignore[no-untyped-def]
    settings, sessions, bundle, accepted, jobs = env
    job = jobs[0]
    steps = InvestigationSteps(settings, sessions, sources=bundle_sources(bundle))
    state = _run(steps, {"job_id": job.id, "group_id": job.group_id, "tier": job.tier, "priority": job.priority})
    by_name = {s.name: s for s in steps.pipeline().steps}
    for name in ("record", "notify"):  # a worker died after the write, before the checkpoint
        by_name[name].run(state)
    with sessions() as s:
        assert len(list(s.scalars(select(InvestigationRow)))) == 1
        assert len(list(s.scalars(select(OutboxRow)))) == 1
        approvals = list(s.scalars(select(ApprovalRow)))
        assert len(approvals) <= 1


def test_engine_failure_still_records_and_notifies(env, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    settings, sessions, bundle, accepted, jobs = env
    import rootward.engine.stages as engine

    def boom(state: EngineState, deps: EngineDeps) -> EngineState:
        raise RuntimeError("metrics API returned 503")

    monkeypatch.setattr(engine, "STAGES", (("assemble_context", boom), *engine.STAGES[1:]))
    import rootward.runtime.investigation_steps as live

    monkeypatch.setattr(live, "STAGES", engine.STAGES)
    job = jobs[0]
    steps = InvestigationSteps(settings, sessions, sources=bundle_sources(bundle))
    state = _run(steps, {"job_id": job.id, "group_id": job.group_id, "tier": job.tier, "priority": job.priority})
    assert state.result().status == "failed"
    assert any("metrics API returned 503" in g for g in state.result().gaps)
    with sessions() as s:
        [note] = list(s.scalars(select(OutboxRow)))
        assert note.payload["summary_source"] == "template"
        assert any("503" in f for f in note.payload["facts"])


def test_snapshot_takes_the_relevant_runbooks_from_the_knowledge_base(env) -> None:  # type: ignore[no-untyped-def]
    from rootward.knowledge.ingest import ingest_directory
    from rootward.sources.base import SourceSet

    settings, sessions, bundle, accepted, jobs = env
    ingest_directory(sessions, BUNDLE / "knowledge", None)
    full = bundle_sources(bundle)
    live = SourceSet(
        alerts=full.alerts,
        logs=full.logs,
        metrics=full.metrics,
        changes=full.changes,
        topology=full.topology,
        knowledge=None,
    )
    job = jobs[0]
    steps = InvestigationSteps(settings, sessions, sources=live)
    state = steps.snapshot(JobState(job_id=job.id, group_id=job.group_id, tier=job.tier, priority=job.priority))
    assert state.bundle_path is not None
    snapshot = load_bundle(state.bundle_path)
    assert "knowledge" not in snapshot.missing
    assert {d.path for d in snapshot.documents or []} & {"runbooks/payment-latency.md", "bits/checkout.md"}


def test_llm_calls_are_attributed_to_the_investigation_and_capped_per_day(env) -> None:  # type: ignore[no-untyped-def]
    from rootward.llm.settings import LLMSettings
    from rootward.store.llm_calls import CostLine, costs_by
    from tests.fixtures.fake_llm import FakeLLMServer

    settings, sessions, bundle, accepted, jobs = env
    job = jobs[0]
    with FakeLLMServer() as server:
        server.script.extend(['{"hypotheses": []}', '{"sentences": []}'] * 4)
        llm = LLMSettings(provider="openai", base_url=server.base_url, model="m", daily_call_cap=3)
        live = settings.model_copy(update={"llm": llm})
        steps = InvestigationSteps(live, sessions, sources=bundle_sources(bundle))
        state = _run(steps, {"job_id": job.id, "group_id": job.group_id, "tier": job.tier, "priority": 1})
        second = _run(steps, {"job_id": jobs[-1].id, "group_id": jobs[-1].group_id, "tier": "L1", "priority": 1})
    with sessions() as s:
        [line] = costs_by(s, "service")
        assert isinstance(line, CostLine) and line.key == state.service and line.calls == 3
    assert any("daily LLM call cap reached" in g for g in second.result().gaps)


def test_l2_files_the_rca_into_the_knowledge_base_and_retries_a_failed_one(
    env,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    from rootward.store.alerts import AlertGroupRow
    from rootward.store.knowledge import KnowledgeDocumentRow

    settings, sessions, bundle, accepted, jobs = env
    with sessions() as s, s.begin():
        for group in s.scalars(select(AlertGroupRow)):
            group.tier = "L2"  # as the router decides for a critical alert on the L2 list
    job = jobs[0]
    steps = InvestigationSteps(settings, sessions, sources=bundle_sources(bundle))
    state = _run(steps, {"job_id": job.id, "group_id": job.group_id, "tier": "L2", "priority": 1})
    assert any(a.startswith("route_to_km (done)") for a in state.safe_actions), state.safe_actions
    with sessions() as s:
        paths = [d.path for d in s.scalars(select(KnowledgeDocumentRow))]
    assert f"incidents/{job.id}.md" in paths

    import rootward.engine.stages as engine
    import rootward.runtime.investigation_steps as live

    def boom(state: EngineState, deps: EngineDeps) -> EngineState:
        raise RuntimeError("metrics API returned 503")

    monkeypatch.setattr(live, "STAGES", (("assemble_context", boom), *engine.STAGES[1:]))
    other = jobs[-1]
    failed = _run(
        InvestigationSteps(settings, sessions, sources=bundle_sources(bundle)),
        {"job_id": other.id, "group_id": other.group_id, "tier": "L2", "priority": 1},
    )
    assert any(a.startswith("retry_task (done)") for a in failed.safe_actions), failed.safe_actions
    with sessions() as s:
        assert len(list(s.scalars(select(Job).where(Job.group_id == other.group_id)))) == 2


def test_proposals_are_predicted_on_the_stored_graph_and_learned_dynamics(env) -> None:  # type: ignore[no-untyped-def]
    """An operator-declared edge that only the stored graph knows, and a learned edge strength,
    both show in the prediction a live proposal carries."""
    from datetime import UTC, datetime

    from rootward.store.worldmodel import save_dynamics, save_graph
    from rootward.worldmodel.dynamics import Dynamics
    from rootward.worldmodel.graph import EdgeClaim, WorldGraph

    settings, sessions, bundle, accepted, jobs = env
    stored = WorldGraph.from_topology(bundle.topology)
    stored.add_entity("ledger", "service")
    stored.add_claim("ledger", "payment", EdgeClaim("operator", "depends_on", 0.85, datetime.now(UTC)))
    learned = Dynamics.from_records({("ledger", "payment"): {"trials": 40, "cascades": 40}})
    with sessions() as s, s.begin():
        save_graph(s, stored.entity_records(), stored.claim_records())
        save_dynamics(s, learned.to_records())
    job = next(j for j in jobs if j.tier in ("L1", "L2"))
    steps = InvestigationSteps(settings, sessions, sources=bundle_sources(bundle))
    state = _run(steps, {"job_id": job.id, "group_id": job.group_id, "tier": job.tier, "priority": job.priority})
    [proposal] = state.result().proposals
    assert proposal.action.target == "payment" and proposal.prediction is not None
    predicted = {e["name"]: e["probability"] for e in proposal.prediction["entities"]}
    assert "ledger" in predicted  # only the stored graph has that edge
    action_impact = 0.3  # config_change's first-hop impact
    assert predicted["ledger"] > 0.85 * 0.6 * action_impact  # stronger than the relation prior: it was learned


def test_a_confirmed_investigation_teaches_the_stored_dynamics_once(env) -> None:  # type: ignore[no-untyped-def]
    from rootward.runtime.learn_history import LEARNED, learn_from_investigation
    from rootward.store.audit import AuditRow
    from rootward.store.worldmodel import load_dynamics, save_graph
    from rootward.worldmodel.dynamics import Dynamics
    from rootward.worldmodel.graph import WorldGraph

    settings, sessions, bundle, accepted, jobs = env
    job = next(j for j in jobs if j.tier in ("L1", "L2"))
    steps = InvestigationSteps(settings, sessions, sources=bundle_sources(bundle))
    _run(steps, {"job_id": job.id, "group_id": job.group_id, "tier": job.tier, "priority": job.priority})
    # no stored graph yet: nothing to learn on
    assert learn_from_investigation(sessions, job.id, "payment", "connection_pool_exhaustion", "rita") == 0
    stored = WorldGraph.from_topology(bundle.topology)
    with sessions() as s, s.begin():
        save_graph(s, stored.entity_records(), stored.claim_records())
    trials = learn_from_investigation(sessions, job.id, "payment", "connection_pool_exhaustion", "rita")
    assert trials > 0
    with sessions() as s:
        learned = Dynamics.from_records(load_dynamics(s))
        entries = list(s.scalars(select(AuditRow).where(AuditRow.kind == LEARNED).order_by(AuditRow.id)))
    assert sum(st.trials for (_, dependency), st in learned.stats.items() if dependency == "payment") >= 1
    assert [e.subject for e in entries] == [job.id]
    assert json.loads(entries[0].data)["symptoms"] > 0  # the snapshot bundle's telemetry saw the silent entities
    # a second confirmation of the same incident does not count it twice
    assert learn_from_investigation(sessions, job.id, "payment", "connection_pool_exhaustion", "rita") == 0


def test_an_investigation_gets_the_budgets_of_the_engine_section(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rw.db'}"
    upgrade(url)
    settings = load_settings(data_dir=tmp_path, database={"url": url}, engine={"cost_usd": 0.25, "llm_calls": 3})
    steps = InvestigationSteps(settings, make_session_factory(make_engine(url)))
    limits = steps.deps.limits
    assert (limits.cost_usd, limits.llm_calls) == (0.25, 3)
