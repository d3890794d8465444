from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.alert import Alert, Severity
from rootward.runtime.intake import Submission, accept_alerts, accept_batches
from rootward.settings import RouterSettings
from rootward.store.alerts import AlertGroupRow, AlertRow, RoutingDecisionRow
from rootward.store.audit import AuditRow, verify_chain
from rootward.store.db import make_engine, make_session_factory
from rootward.store.jobs import Job

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def sessions(migrated_db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(migrated_db_url)
    yield make_session_factory(engine)
    engine.dispose()


def alert(fp: str, service: str = "checkout", status: str = "firing", severity: Severity = Severity.P1) -> Alert:
    return Alert(
        fingerprint=fp,
        name="HighErrorRate",
        service=service,
        severity=severity,
        status=status,  # type: ignore[arg-type]
        starts_at=T0,
        labels={"alertname": "HighErrorRate", "service": service},
        annotations={"summary": "errors"},
    )


def count(sessions: sessionmaker[Session], model: type) -> int:
    with sessions() as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


def test_same_alert_twice_is_one_alert_one_group_one_investigation(sessions: sessionmaker[Session]) -> None:
    first = accept_alerts(sessions, [alert("a")], source="alertmanager", settings=RouterSettings(), now=T0)
    second = accept_alerts(
        sessions, [alert("a")], source="alertmanager", settings=RouterSettings(), now=T0 + timedelta(seconds=20)
    )
    assert second.decisions[0].alert_id == first.decisions[0].alert_id
    assert (count(sessions, AlertRow), count(sessions, AlertGroupRow), count(sessions, Job)) == (1, 1, 1)
    with sessions() as s:
        row = s.get(AlertRow, first.decisions[0].alert_id)
        group = s.get(AlertGroupRow, first.decisions[0].group_id)
        assert row is not None and row.count == 2
        assert group is not None and group.investigation_job_id is not None
        assert s.scalar(select(Job.group_id)) == group.id


def test_resolved_notification_marks_the_stored_alert_resolved(sessions: sessionmaker[Session]) -> None:
    accept_alerts(sessions, [alert("a")], source="generic", settings=RouterSettings(), now=T0)
    done = accept_alerts(sessions, [alert("a", status="resolved")], source="generic", settings=RouterSettings())
    with sessions() as s:
        row = s.get(AlertRow, done.decisions[0].alert_id)
        group = s.get(AlertGroupRow, done.decisions[0].group_id)
    assert row is not None and row.status == "resolved" and row.ends_at is not None
    assert group is not None and group.status == "resolved"


def test_batch_of_many_requests_for_seven_services_makes_seven_groups(sessions: sessionmaker[Session]) -> None:
    subs = [Submission("generic", [alert(f"fp{i}", service=f"svc{i % 7}")]) for i in range(200)]
    results = accept_batches(sessions, subs[:120], settings=RouterSettings(), now=T0)
    results += accept_batches(sessions, subs[120:], settings=RouterSettings(), now=T0 + timedelta(seconds=4))
    assert [len(r.decisions) for r in results] == [1] * 200
    assert count(sessions, AlertRow) == 200
    assert count(sessions, AlertGroupRow) == 7
    assert count(sessions, Job) == 7
    with sessions() as s:
        assert verify_chain(s).ok
        assert s.scalar(select(func.count()).where(AuditRow.kind == "alert.intake")) == 200


def test_failure_while_storing_writes_nothing(sessions: sessionmaker[Session]) -> None:
    def broken_enqueue(session: Session, group_id: str, rank: int, tier: str) -> str:
        raise RuntimeError("queue down")

    with pytest.raises(RuntimeError):
        accept_alerts(
            sessions,
            [alert("a"), alert("b", service="db")],
            source="generic",
            settings=RouterSettings(),
            enqueue=broken_enqueue,
        )
    for model in (AlertRow, AlertGroupRow, RoutingDecisionRow, AuditRow):
        assert count(sessions, model) == 0


def test_a_cascade_across_linked_services_is_one_group_and_one_investigation(sessions: sessionmaker[Session]) -> None:
    from rootward.domain.topology import Entity, Topology
    from rootward.ingest.topology_links import topology_links

    topology = Topology(
        entities={
            "checkout": Entity("checkout", depends_on=("payments",), runs_on=("node-1",)),
            "payments": Entity("payments", runs_on=("node-1",)),
            "search": Entity("search", runs_on=("node-1",)),  # same host, no call: not linked
        }
    )
    linked = topology_links(topology, hops=2)
    settings = RouterSettings()
    first = accept_alerts(sessions, [alert("a", "checkout")], source="am", settings=settings, now=T0, linked=linked)
    later = T0 + timedelta(seconds=40)
    second = accept_alerts(sessions, [alert("b", "payments")], source="am", settings=settings, now=later, linked=linked)
    third = accept_alerts(sessions, [alert("c", "search")], source="am", settings=settings, now=later, linked=linked)
    assert second.decisions[0].group_id == first.decisions[0].group_id
    assert third.decisions[0].group_id != first.decisions[0].group_id
    assert count(sessions, Job) == 2
    with sessions() as s:
        group = s.get(AlertGroupRow, first.decisions[0].group_id)
        reason = s.scalar(
            select(RoutingDecisionRow.reason).where(RoutingDecisionRow.alert_id == second.decisions[0].alert_id)
        )
    assert group is not None and group.alert_count == 2
    assert reason is not None and "payments is linked to checkout in the topology" in reason


def test_a_flap_within_the_quiet_period_rejoins_its_stored_group(sessions: sessionmaker[Session]) -> None:
    settings = RouterSettings()
    first = accept_alerts(sessions, [alert("a")], source="am", settings=settings, now=T0)
    accept_alerts(sessions, [alert("a", status="resolved")], source="am", settings=settings, now=T0)
    flap = accept_alerts(sessions, [alert("a")], source="am", settings=settings, now=T0 + timedelta(minutes=2))
    assert flap.decisions[0].group_id == first.decisions[0].group_id
    later = accept_alerts(
        sessions, [alert("a", status="resolved")], source="am", settings=settings, now=T0 + timedelta(minutes=3)
    )
    assert later.decisions[0].action == "resolved"
    new = accept_alerts(sessions, [alert("a")], source="am", settings=settings, now=T0 + timedelta(minutes=30))
    assert new.decisions[0].group_id != first.decisions[0].group_id
    assert count(sessions, Job) == 2
