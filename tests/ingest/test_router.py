from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from rootward.domain.alert import Alert, Severity, Tier
from rootward.ingest.router import GroupState, KnownAlert, RoutingPlan, route
from rootward.settings import RouterSettings

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def alert(fp: str, service: str = "checkout", severity: Severity = Severity.P1, status: str = "firing") -> Alert:
    return Alert(
        fingerprint=fp,
        name="HighErrorRate",
        service=service,
        severity=severity,
        status=status,  # type: ignore[arg-type]
        starts_at=T0,
    )


class Router:
    """Keeps the state between calls the way the database would."""

    def __init__(self) -> None:
        self.known: dict[str, KnownAlert] = {}
        self.groups: dict[str, GroupState] = {}
        self.open: dict[str, GroupState] = {}
        counter = itertools.count()
        self.new_id = lambda: f"id{next(counter)}"

    def __call__(self, *alerts: Alert, now: datetime = T0, settings: RouterSettings | None = None) -> RoutingPlan:
        return route(
            alerts,
            now=now,
            known=self.known,
            groups_by_id=self.groups,
            open_groups=self.open,
            settings=settings or RouterSettings(),
            new_id=self.new_id,
        )


def test_repeated_firing_alert_updates_count_and_starts_nothing_new() -> None:
    r = Router()
    first = r(alert("a"))
    again = r(alert("a"), now=T0 + timedelta(seconds=30))
    assert [d.action for d in again.decisions] == ["duplicate"]
    assert again.new_alerts == [] and again.investigate == []
    update = again.updates[first.new_alerts[0].id]
    assert (update.count, update.last_seen) == (2, T0 + timedelta(seconds=30))


def test_resolved_alert_marks_it_and_its_group_resolved() -> None:
    r = Router()
    r(alert("a"), alert("b"))
    half = r(alert("a", status="resolved"))
    assert half.decisions[0].action == "resolved"
    assert next(iter(half.groups.values())).status == "open"
    done = r(alert("b", status="resolved"))
    assert next(iter(done.groups.values())).status == "resolved"


def test_alerts_of_one_service_in_the_window_share_a_group_and_one_investigation() -> None:
    r = Router()
    plan = r(alert("a"), alert("b"), alert("c", service="payments"))
    later = r(alert("d"), now=T0 + timedelta(minutes=4))
    assert [d.action for d in plan.decisions] == ["new_group", "joined_group", "new_group"]
    assert later.decisions[0].action == "joined_group"
    assert later.decisions[0].group_id == plan.decisions[0].group_id
    assert len(plan.investigate) == 2 and later.investigate == []


def test_alert_after_the_window_opens_a_new_group() -> None:
    r = Router()
    first = r(alert("a"))
    late = r(alert("b"), now=T0 + timedelta(minutes=6))
    assert late.decisions[0].action == "new_group"
    assert late.decisions[0].group_id != first.decisions[0].group_id


def test_window_slides_with_each_new_alert() -> None:
    r = Router()
    first = r(alert("a"))
    r(alert("b"), now=T0 + timedelta(minutes=4))
    plan = r(alert("c"), now=T0 + timedelta(minutes=8))
    assert plan.decisions[0].group_id == first.decisions[0].group_id


def test_l0_group_gets_its_investigation_when_an_alert_escalates_it() -> None:
    r = Router()
    quiet = r(alert("a", severity=Severity.P2))
    assert quiet.investigate == [] and quiet.decisions[0].tier == Tier.L0
    loud = r(alert("b", severity=Severity.P0))
    [group] = loud.investigate
    assert (group.tier, group.human, group.severity) == (Tier.L2, True, Severity.P0)
    assert r(alert("c", severity=Severity.P0)).investigate == []


def test_resolved_group_is_not_joined_and_refiring_after_the_quiet_period_opens_a_new_occurrence() -> None:
    r = Router()
    first = r(alert("a"))
    r(alert("a", status="resolved"))
    again = r(alert("a"), now=T0 + timedelta(minutes=6))
    assert again.decisions[0].action == "new_group"
    assert again.new_alerts[0].id != first.new_alerts[0].id
    assert len(again.investigate) == 1


def test_a_flap_within_the_quiet_period_rejoins_its_group_without_a_new_investigation() -> None:
    r = Router()
    first = r(alert("a"))
    r(alert("a", status="resolved"), now=T0 + timedelta(minutes=1))
    again = r(alert("a"), now=T0 + timedelta(minutes=3))
    assert again.decisions[0].action == "joined_group"
    assert again.decisions[0].group_id == first.decisions[0].group_id
    assert "re-fired within the quiet period" in again.decisions[0].reason
    assert next(iter(again.groups.values())).status == "open"
    assert again.investigate == []
    quiet = RouterSettings(refire_quiet_period=timedelta(0))
    r(alert("a", status="resolved"), now=T0 + timedelta(minutes=4))
    assert r(alert("a"), now=T0 + timedelta(minutes=5), settings=quiet).decisions[0].action == "new_group"


def _linked(a: str, b: str) -> bool:
    return {a, b} <= {"checkout", "payments", "db"}


def test_alerts_of_linked_services_share_one_group_and_one_investigation_with_topology_grouping() -> None:
    r = Router()
    plan = route(
        [alert("a", service="checkout"), alert("b", service="payments"), alert("c", service="search")],
        now=T0,
        known=r.known,
        groups_by_id=r.groups,
        open_groups=r.open,
        settings=RouterSettings(),
        new_id=r.new_id,
        linked=_linked,
    )
    assert [d.action for d in plan.decisions] == ["new_group", "joined_group", "new_group"]
    assert plan.decisions[1].group_id == plan.decisions[0].group_id
    assert "payments is linked to checkout in the topology" in plan.decisions[1].reason
    assert len(plan.investigate) == 2
    group = r.groups[plan.decisions[0].group_id]
    assert group.services == {"checkout", "payments"} and group.alert_count == 2
    # By service, the same alerts are three groups.
    s = Router()
    by_service = route(
        [alert("a", service="checkout"), alert("b", service="payments")],
        now=T0,
        known=s.known,
        groups_by_id=s.groups,
        open_groups=s.open,
        settings=RouterSettings(group_by="service"),
        new_id=s.new_id,
        linked=_linked,
    )
    assert [d.action for d in by_service.decisions] == ["new_group", "new_group"]


def test_resolution_of_an_unseen_alert_is_stored_without_investigation() -> None:
    r = Router()
    plan = r(alert("z", status="resolved"))
    assert plan.investigate == []
    assert next(iter(plan.groups.values())).status == "resolved"


def test_same_fingerprint_twice_in_one_batch_is_one_alert() -> None:
    plan = Router()(alert("a"), alert("a"))
    assert len(plan.new_alerts) == 1
    assert [d.action for d in plan.decisions] == ["new_group", "duplicate"]
