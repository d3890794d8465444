"""Accepting a batch of alerts: load what the router needs, route, write it all in one transaction.

This is ingest's I/O edge (the routing itself is the pure `router.route`).
Everything of one request commits together or not at all: alerts, groups,
routing decisions, the investigation jobs of new L1+ groups (through the
runtime's queue, in the same transaction) and their audit rows. The work per
request is a handful of statements whatever the batch size, so intake stays
fast on SQLite.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.alert import Alert, Severity, Tier
from rootward.ingest.admission import StoreLimits
from rootward.ingest.router import Decision, GroupState, KnownAlert, Linked, NewAlert, RoutingPlan, route
from rootward.ingest.settings import RouterSettings
from rootward.runtime.queue import enqueue_investigation
from rootward.store.alerts import AlertGroupRow, AlertRow, RoutingDecisionRow, utc
from rootward.store.audit import AuditEntry, append_audit_many, lock_audit_chain
from rootward.store.ids import new_id
from rootward.store.jobs import Job
from rootward.store.text_limits import column_length

Enqueue = Callable[[Session, str, int, str], str]

# Core statements on the tables (not ORM bulk operations): a fraction of the per-request cost.
_GROUPS = cast(Table, AlertGroupRow.__table__)
_ALERTS = cast(Table, AlertRow.__table__)
_DECISIONS = cast(Table, RoutingDecisionRow.__table__)
_JOBS = cast(Table, Job.__table__)
# A group whose investigation ended so is investigated again when a more severe alert joins.
ENDED_WITHOUT_RESULT = ("failed", "expired")
_UPDATE_GROUP = (
    update(_GROUPS)
    .where(_GROUPS.c.id == bindparam("b_id"))
    .values(
        status=bindparam("status"),
        tier=bindparam("tier"),
        human=bindparam("human"),
        severity=bindparam("severity"),
        reason=bindparam("reason"),
        last_alert_at=bindparam("last_alert_at"),
        alert_count=bindparam("alert_count"),
        firing_count=bindparam("firing_count"),
    )
)
_SET_JOB = update(_GROUPS).where(_GROUPS.c.id == bindparam("b_id")).values(investigation_job_id=bindparam("job"))
_UPDATE_ALERT = (
    update(_ALERTS)
    .where(_ALERTS.c.id == bindparam("b_id"))
    .values(status=bindparam("status"), count=bindparam("count"), last_seen=bindparam("last_seen"))
)
_RESOLVE_ALERT = _UPDATE_ALERT.values(ends_at=bindparam("ends_at"))


@dataclass(frozen=True)
class Submission:
    """The alerts of one request, and the webhook they came through."""

    source: str
    alerts: Sequence[Alert]


@dataclass(frozen=True)
class AcceptResult:
    decisions: list[Decision]

    @property
    def group_ids(self) -> list[str]:
        return list(dict.fromkeys(d.group_id for d in self.decisions))

    def as_json(self) -> dict[str, Any]:
        return {
            "accepted": len(self.decisions),
            "alerts": [{"id": d.alert_id, "group_id": d.group_id, "action": d.action} for d in self.decisions],
            "groups": self.group_ids,
        }


def store_limits() -> StoreLimits:
    """The longest name, service and fingerprint the alert tables hold, read from their columns."""
    services = [n for n in (column_length(_ALERTS.c.service), column_length(_GROUPS.c.service)) if n is not None]
    return StoreLimits(
        name=column_length(_ALERTS.c.name),
        service=min(services, default=None),
        fingerprint=column_length(_ALERTS.c.fingerprint),
    )


def _group_state(row: Any) -> GroupState:
    return GroupState(
        id=row.id,
        service=row.service,
        status=row.status,
        tier=Tier(row.tier),
        human=row.human,
        severity=Severity(row.severity),
        reason=row.reason,
        opened_at=utc(row.opened_at),
        last_alert_at=utc(row.last_alert_at),
        alert_count=row.alert_count,
        firing_count=row.firing_count,
        has_investigation=row.investigation_job_id is not None,
        investigation_failed=row.job_status in ENDED_WITHOUT_RESULT,
    )


def _load_state(
    session: Session, alerts: Sequence[Alert], window_start: datetime, all_open: bool = False
) -> tuple[dict[str, KnownAlert], dict[str, GroupState], dict[str, GroupState]]:
    """What the router needs; `all_open`: every open group in the window (topology grouping), with its services."""
    fingerprints = list({a.fingerprint for a in alerts})
    services = list({a.service for a in alerts})
    known: dict[str, KnownAlert] = {}
    rows = session.execute(
        select(
            _ALERTS.c.id,
            _ALERTS.c.fingerprint,
            _ALERTS.c.group_id,
            _ALERTS.c.status,
            _ALERTS.c.count.label("n"),
            _ALERTS.c.ends_at,
        ).where(_ALERTS.c.fingerprint.in_(fingerprints))
    ).all()
    for r in rows:  # ids are time-ordered: keep the newest occurrence
        if r.fingerprint not in known or r.id > known[r.fingerprint].id:
            resolved_at = utc(r.ends_at) if r.status == "resolved" and r.ends_at else None
            known[r.fingerprint] = KnownAlert(r.id, r.fingerprint, r.group_id, r.status, r.n, resolved_at)
    groups_by_id: dict[str, GroupState] = {}
    open_groups: dict[str, GroupState] = {}
    group_ids = {k.group_id for k in known.values()}
    with_job = select(_GROUPS, _JOBS.c.status.label("job_status")).outerjoin(
        _JOBS, _JOBS.c.id == _GROUPS.c.investigation_job_id
    )
    in_window = [_GROUPS.c.status == "open", _GROUPS.c.last_alert_at >= window_start]
    candidates = with_job.where(*in_window) if all_open else with_job.where(*in_window, _GROUPS.c.service.in_(services))
    for row in session.execute(candidates):
        state = _group_state(row)
        groups_by_id[state.id] = state
        current = open_groups.get(state.service)
        if current is None or state.last_alert_at > current.last_alert_at:
            open_groups[state.service] = state
    missing = group_ids - groups_by_id.keys()
    if missing:
        for row in session.execute(with_job.where(_GROUPS.c.id.in_(missing))):
            groups_by_id[row.id] = _group_state(row)
    if all_open and groups_by_id:
        members = select(_ALERTS.c.group_id, _ALERTS.c.service).where(_ALERTS.c.group_id.in_(list(groups_by_id)))
        for group_id, service in session.execute(members.distinct()):
            groups_by_id[group_id].services.add(service)
    return known, groups_by_id, open_groups


def _group_values(g: GroupState) -> dict[str, Any]:
    return {
        "id": g.id,
        "service": g.service,
        "status": g.status,
        "tier": g.tier.value,
        "human": g.human,
        "severity": g.severity.value,
        "reason": g.reason,
        "opened_at": g.opened_at,
        "last_alert_at": g.last_alert_at,
        "alert_count": g.alert_count,
        "firing_count": g.firing_count,
    }


def _write_groups(session: Session, plan: RoutingPlan) -> None:
    new_groups = [_group_values(g) for g in plan.groups.values() if g.is_new]
    changed = [_group_values(g) for g in plan.groups.values() if not g.is_new]
    if new_groups:
        session.execute(_GROUPS.insert(), new_groups)
    if changed:
        for values in changed:
            values["b_id"] = values.pop("id")
            del values["service"], values["opened_at"]
        session.execute(_UPDATE_GROUP, changed)


def _alert_values(n: NewAlert, source: str, now: datetime) -> dict[str, Any]:
    return {
        "id": n.id,
        "fingerprint": n.alert.fingerprint,
        "group_id": n.group_id,
        "source": source,
        "name": n.alert.name,
        "service": n.alert.service,
        "severity": n.alert.severity.value,
        "status": n.alert.status,
        "tier": n.tier.value,
        "labels": n.alert.labels,
        "annotations": n.alert.annotations,
        "starts_at": n.alert.starts_at,
        "ends_at": n.alert.ends_at,
        "generator_url": n.alert.generator_url,
        "first_seen": now,
        "last_seen": now,
        "count": 1,
    }


def _write_alerts(session: Session, plan: RoutingPlan, submissions: Sequence[Submission], now: datetime) -> None:
    sources = [sub.source for sub in submissions for _ in sub.alerts]
    if plan.new_alerts:
        session.execute(_ALERTS.insert(), [_alert_values(n, sources[n.position], now) for n in plan.new_alerts])
    rows = [
        {"b_id": u.id, "status": u.status, "count": u.count, "last_seen": u.last_seen, "ends_at": u.ends_at}
        for u in plan.updates.values()
    ]
    resolving = [r for r in rows if r["ends_at"] is not None]
    repeating = [r for r in rows if r["ends_at"] is None]
    if resolving:
        session.execute(_RESOLVE_ALERT, resolving)
    if repeating:
        session.execute(_UPDATE_ALERT, repeating)
    session.execute(
        _DECISIONS.insert(),
        [
            {
                "id": new_id(),
                "alert_id": d.alert_id,
                "group_id": d.group_id,
                "action": d.action,
                "tier": d.tier.value,
                "reason": d.reason,
                "decided_at": now,
            }
            for d in plan.decisions
        ],
    )


def _intake_audit(plan: RoutingPlan, submissions: Sequence[Submission]) -> list[AuditEntry]:
    """One audit row per request, holding every routing decision of it.

    The reasons are in routing_decisions: the chain covers each decision at a
    fraction of a row per alert.
    """
    audit: list[AuditEntry] = []
    start = 0
    for sub in submissions:
        mine = plan.decisions[start : start + len(sub.alerts)]
        start += len(sub.alerts)
        decisions = [
            {
                "alert": d.alert_id,
                "fingerprint": d.fingerprint,
                "group": d.group_id,
                "action": d.action,
                "tier": d.tier.value,
            }
            for d in mine
        ]
        audit.append(AuditEntry("alert.intake", sub.source, {"decisions": decisions}))
    return audit


def _enqueue_investigations(session: Session, plan: RoutingPlan, enqueue: Enqueue) -> list[AuditEntry]:
    audit: list[AuditEntry] = []
    jobs = []
    for group in plan.investigate:
        job_id = enqueue(session, group.id, group.severity.rank, group.tier.value)
        jobs.append({"b_id": group.id, "job": job_id})
        audit.append(AuditEntry("group.investigation", group.id, {"job": job_id, "tier": group.tier.value}))
    if jobs:
        session.execute(_SET_JOB, jobs)
    return audit


def _write(
    session: Session, plan: RoutingPlan, submissions: Sequence[Submission], now: datetime, enqueue: Enqueue
) -> None:
    _write_groups(session, plan)
    _write_alerts(session, plan, submissions, now)
    audit = _intake_audit(plan, submissions) + _enqueue_investigations(session, plan, enqueue)
    append_audit_many(session, audit)


def accept_batches(
    sessions: sessionmaker[Session],
    submissions: Sequence[Submission],
    *,
    settings: RouterSettings,
    now: datetime | None = None,
    enqueue: Enqueue = enqueue_investigation,
    linked: Linked | None = None,
) -> list[AcceptResult]:
    """Route and store several requests' alerts in one transaction (group commit), in order.

    Returns one result per submission, each with one decision per alert. `enqueue` queues
    the investigation of each new or escalated group, inside the same transaction. `linked`
    (the topology's service links) lets `router.group_by: topology` join linked services' groups.
    """
    if settings.group_by != "topology":
        linked = None
    now = now or datetime.now(UTC)
    alerts = [alert for sub in submissions for alert in sub.alerts]
    with sessions.begin() as session:
        lock_audit_chain(session)  # several API replicas on PostgreSQL route one at a time
        known, groups_by_id, open_groups = _load_state(
            session, alerts, now - settings.group_window, all_open=linked is not None
        )
        plan = route(
            alerts,
            now=now,
            known=known,
            groups_by_id=groups_by_id,
            open_groups=open_groups,
            settings=settings,
            new_id=new_id,
            linked=linked,
        )
        _write(session, plan, submissions, now, enqueue)
    results = []
    start = 0
    for sub in submissions:
        results.append(AcceptResult(plan.decisions[start : start + len(sub.alerts)]))
        start += len(sub.alerts)
    return results


def accept_alerts(
    sessions: sessionmaker[Session],
    alerts: Sequence[Alert],
    *,
    source: str,
    settings: RouterSettings,
    now: datetime | None = None,
    enqueue: Enqueue = enqueue_investigation,
    linked: Linked | None = None,
) -> AcceptResult:
    """Route and store one request's alerts in one transaction; one decision per alert, in order."""
    subs = [Submission(source, alerts)]
    return accept_batches(sessions, subs, settings=settings, now=now, enqueue=enqueue, linked=linked)[0]
