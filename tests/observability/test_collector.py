from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.orm import Session

from rootward.domain.investigation import InvestigationResult
from rootward.llm.client import CallRecord
from rootward.observability.collector import DatabaseCollector
from rootward.observability.db_stats import read_snapshot
from rootward.settings import load_settings
from rootward.store.alerts import AlertGroupRow, AlertRow, RoutingDecisionRow
from rootward.store.approvals import ApprovalRow
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import save_investigation
from rootward.store.jobs import Job
from rootward.store.llm_calls import record_llm_call
from rootward.store.outbox import OutboxRow
from rootward.store.worldmodel import WmProposalRow
from rootward.web.app import create_app

NOW = datetime.now(UTC).replace(microsecond=0)


def _seed(session: Session) -> None:
    t0 = NOW - timedelta(minutes=10)
    session.add(
        AlertGroupRow(
            id="g1",
            service="checkout",
            status="open",
            tier="L2",
            severity="P1",
            reason="",
            opened_at=t0,
            last_alert_at=t0,
            alert_count=2,
            firing_count=2,
        )
    )
    session.flush()
    for i in range(2):
        session.add(
            AlertRow(
                id=f"a{i}",
                fingerprint=f"f{i}",
                group_id="g1",
                source="generic",
                name="HighErrorRate",
                service="checkout",
                severity="P1",
                status="firing",
                tier="L2",
                labels={},
                annotations={},
                starts_at=t0,
                first_seen=t0,
                last_seen=t0,
            )
        )
    session.flush()
    for i, action in enumerate(("investigate", "join_group")):
        session.add(
            RoutingDecisionRow(
                id=f"r{i}", alert_id=f"a{i}", group_id="g1", action=action, tier="L2", reason="", decided_at=t0
            )
        )
    # One job waited 3 s and ran 40 s; one still queued for 10 minutes.
    session.add(
        Job(
            id="j1",
            group_id="g1",
            status="done",
            priority=1,
            tier="L2",
            enqueued_at=t0,
            started_at=t0 + timedelta(seconds=3),
            finished_at=t0 + timedelta(seconds=43),
        )
    )
    session.add(Job(id="j2", group_id="g2", status="queued", priority=1, tier="L1", enqueued_at=t0))
    result = InvestigationResult.model_validate(
        {"bundle": "b", "status": "validated", "timing": {"first_hypothesis_ms": 1500, "total_ms": 7000}}
    )
    save_investigation(session, result, title="t", service="checkout", tier="L2")
    call = CallRecord("rca", "openai", "gpt-x", "ok", 1000, 200, 0.012, 900)
    record_llm_call(session, call, "inv-1", "checkout")
    record_llm_call(
        session, CallRecord("rca", "openai", "gpt-x", "error", 0, 0, 0.0, 30000, "timeout"), "inv-1", "checkout"
    )
    session.add(
        OutboxRow(
            channel="slack",
            key="k1",
            investigation_id="inv-1",
            payload={},
            status="pending",
            created_at=NOW - timedelta(seconds=120),
            next_attempt_at=NOW,
        )
    )
    session.add(
        ApprovalRow(
            id="ap1",
            investigation_id="inv-1",
            proposal_hash="h",
            action_json="{}",
            prediction={},
            status="approved",
            requested_at=t0,
            expires_at=t0 + timedelta(minutes=30),
        )
    )
    session.add(
        WmProposalRow(
            id="p1",
            investigation_id="inv-1",
            proposal_hash="h",
            action={},
            action_class="rollback",
            status="executed",
            verdict="match",
            created_at=t0,
        )
    )
    session.commit()


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def test_metrics_endpoint_reports_every_section_from_the_database(migrated_db_url: str, tmp_path: Path) -> None:
    engine = make_engine(migrated_db_url)
    with make_session_factory(engine)() as session:
        _seed(session)
    settings = load_settings(
        data_dir=tmp_path, database={"url": migrated_db_url}, intake={"auth": "none"}, runtime={"workers": 0}
    )
    with TestClient(create_app(settings, engine=engine)) as client:
        response = client.get("/metrics")
    engine.dispose()
    assert response.status_code == 200
    s = _samples(response.text)

    def v(name: str, **labels: str) -> float:
        return s[(name, frozenset(labels.items()))]

    assert v("rootward_routing_decisions_total", tier="L2", action="investigate") == 1
    assert v("rootward_alert_groups", tier="L2", status="open") == 1
    assert v("rootward_queue_jobs", status="queued") == 1
    assert 590 <= v("rootward_queue_oldest_queued_seconds") <= 3600
    assert v("rootward_queue_wait_seconds_bucket", tier="L2", le="2.0") == 0
    assert v("rootward_queue_wait_seconds_bucket", tier="L2", le="5.0") == 1
    assert abs(v("rootward_queue_wait_seconds_sum", tier="L2") - 3.0) < 0.01
    assert v("rootward_job_duration_seconds_bucket", status="done", le="30.0") == 0
    assert v("rootward_job_duration_seconds_bucket", status="done", le="60.0") == 1
    assert v("rootward_investigation_duration_seconds_bucket", status="validated", tier="L2", le="5.0") == 0
    assert v("rootward_investigation_duration_seconds_bucket", status="validated", tier="L2", le="10.0") == 1
    assert v("rootward_first_hypothesis_seconds_sum", tier="L2") == 1.5
    assert v("rootward_llm_calls_total", provider="openai", model="gpt-x", service="checkout", status="error") == 1
    assert (
        v("rootward_llm_tokens_total", provider="openai", model="gpt-x", service="checkout", direction="input") == 1000
    )
    assert v("rootward_llm_cost_usd_total", provider="openai", model="gpt-x", service="checkout") == 0.012
    assert v("rootward_outbox_notifications", channel="slack", status="pending") == 1
    assert 100 <= v("rootward_outbox_oldest_pending_seconds", channel="slack") <= 3600
    assert v("rootward_approvals", status="approved") == 1
    assert v("rootward_proposal_verdicts_total", action_class="rollback", verdict="match") == 1
    assert not [k for k in s if k[0] == "rootward_metrics_section_errors"]


def test_a_missing_table_is_reported_as_a_section_error_not_a_failed_scrape(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    snap = read_snapshot(make_session_factory(engine), NOW)
    assert set(snap.errors) == {"routing", "queue", "investigations", "llm", "outbox", "approvals"}


def test_collector_reads_the_database_at_most_once_per_ttl(migrated_db_url: str) -> None:
    engine = make_engine(migrated_db_url)
    factory = make_session_factory(engine)
    opened = []

    def sessions() -> Session:
        opened.append(1)
        return factory()

    clock = [0.0]
    collector = DatabaseCollector(sessions, ttl_s=5, clock=lambda: clock[0])
    list(collector.collect())
    first = len(opened)
    clock[0] = 4.9
    list(collector.collect())
    assert len(opened) == first
    clock[0] = 5.0
    list(collector.collect())
    assert len(opened) == 2 * first
    engine.dispose()
