"""Dedup and grouping as a pure function: alerts + what the database knows -> a routing plan.

- Same fingerprint, still firing: the stored alert's count and last_seen move,
  nothing new starts (`duplicate`).
- `resolved` for a firing alert marks it resolved (`resolved`); a group whose
  alerts are all resolved is resolved.
- A firing alert whose previous occurrence resolved less than
  `router.refire_quiet_period` ago rejoins (and reopens) that group: a flapping
  alert is one incident, not one investigation per flap. After the quiet period
  it is a new occurrence.
- Otherwise a new alert joins the open group of its service that saw an alert
  within `router.group_window` (`joined_group`), or, with `group_by: topology`
  and a topology known, the open group of a service linked to its own in the
  topology (`linked`: one cascade is one incident), or opens a new group
  (`new_group`). A group's tier is the highest tier of its alerts; the first
  time it reaches L1 or above it is marked for exactly one investigation.
- A group whose investigation ended without a result (failed, expired) is
  marked for a new one when an alert more severe than any before joins it:
  a page must not inherit the failure of the warning that opened its group.

The caller (runtime/intake.py) loads the state, calls `route`, and writes the
plan in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from rootward.domain.alert import Alert, Severity, Tier
from rootward.ingest.settings import RouterSettings
from rootward.ingest.tiers import TIER_ORDER, TierRules, more_severe

Action = Literal["new_group", "joined_group", "duplicate", "resolved"]
# Whether two services are linked in the topology (what `group_by: topology` groups by).
Linked = Callable[[str, str], bool]


@dataclass
class KnownAlert:
    """The latest stored occurrence of a fingerprint."""

    id: str
    fingerprint: str
    group_id: str
    status: str
    count: int
    resolved_at: datetime | None = None  # when it resolved, for the re-fire quiet period


@dataclass
class GroupState:
    id: str
    service: str
    status: str
    tier: Tier
    human: bool
    severity: Severity
    reason: str
    opened_at: datetime
    last_alert_at: datetime
    alert_count: int
    firing_count: int
    has_investigation: bool
    investigation_failed: bool = False  # its job ended failed or expired
    is_new: bool = False
    changed: bool = False
    services: set[str] = field(default_factory=set)  # of its alerts; the group's own service among them

    def __post_init__(self) -> None:
        self.services.add(self.service)


@dataclass(frozen=True)
class NewAlert:
    id: str
    alert: Alert
    group_id: str
    tier: Tier
    position: int  # index of the alert in the routed batch


@dataclass
class AlertUpdate:
    id: str
    status: str
    count: int
    last_seen: datetime
    ends_at: datetime | None


@dataclass(frozen=True)
class Decision:
    alert_id: str
    group_id: str
    fingerprint: str
    action: Action
    tier: Tier
    reason: str


@dataclass
class RoutingPlan:
    new_alerts: list[NewAlert] = field(default_factory=list)
    updates: dict[str, AlertUpdate] = field(default_factory=dict)
    groups: dict[str, GroupState] = field(default_factory=dict)  # new or changed
    decisions: list[Decision] = field(default_factory=list)
    investigate: list[GroupState] = field(default_factory=list)


def _escalate(group: GroupState, alert: Alert, tier: Tier, human: bool, reason: str) -> None:
    group.severity = more_severe(group.severity, alert.severity)
    group.human = group.human or human
    if TIER_ORDER[tier] > TIER_ORDER[group.tier]:
        group.tier = tier
        group.reason = reason


def _close(open_groups: dict[str, GroupState], group: GroupState) -> None:
    for service in group.services:
        if open_groups.get(service) is group:
            del open_groups[service]


def _group_to_join(
    alert: Alert,
    prev: KnownAlert | None,
    prev_group: GroupState | None,
    now: datetime,
    settings: RouterSettings,
    open_groups: dict[str, GroupState],
    groups_by_id: dict[str, GroupState],
    linked: Linked | None,
) -> tuple[GroupState | None, str]:
    """The group a new alert joins, and why; (None, "") for a new group."""
    quiet: timedelta = settings.refire_quiet_period
    if (
        prev is not None
        and prev_group is not None
        and alert.status == "firing"
        and prev.resolved_at is not None
        and now - prev.resolved_at < quiet
    ):
        return prev_group, f"re-fired within the quiet period ({quiet}) after resolving: rejoins its group"
    window_start = now - settings.group_window
    own = open_groups.get(alert.service)
    if own is not None and own.status == "open" and own.last_alert_at >= window_start:
        return own, f"joined open group of {alert.service} (last alert within the window)"
    if linked is None:
        return None, ""
    candidates = [
        g
        for g in groups_by_id.values()
        if g.status == "open" and g.last_alert_at >= window_start and any(linked(alert.service, s) for s in g.services)
    ]
    if not candidates:
        return None, ""
    group = max(candidates, key=lambda g: g.last_alert_at)
    peer = next(s for s in sorted(group.services) if linked(alert.service, s))
    return group, f"joined open group of {group.service}: {alert.service} is linked to {peer} in the topology"


def route(
    alerts: Sequence[Alert],
    *,
    now: datetime,
    known: dict[str, KnownAlert],
    groups_by_id: dict[str, GroupState],
    open_groups: dict[str, GroupState],
    settings: RouterSettings,
    new_id: Callable[[], str],
    linked: Linked | None = None,
) -> RoutingPlan:
    """Route a batch in order; `known`, `groups_by_id` and `open_groups` are updated in place.

    `open_groups` maps a service to its newest open group (any age: the window
    is checked here); `groups_by_id` holds the groups of the `known` alerts and,
    when `linked` is given (topology grouping), every open group in the window.
    """
    if settings.group_by != "topology":
        linked = None
    plan = RoutingPlan()
    rules = TierRules(settings)

    def touch(group: GroupState) -> None:
        group.changed = True
        plan.groups[group.id] = group

    for position, alert in enumerate(alerts):
        decision = rules.decide(alert)
        prev = known.get(alert.fingerprint)
        prev_group = groups_by_id.get(prev.group_id) if prev else None

        if prev is not None and prev_group is not None and (prev.status == "firing" or alert.status == "resolved"):
            update = plan.updates.get(prev.id) or AlertUpdate(prev.id, prev.status, prev.count, now, None)
            update.count += 1
            update.last_seen = now
            prev.count = update.count
            plan.updates[prev.id] = update
            if alert.status == "resolved" and prev.status == "firing":
                action: Action = "resolved"
                reason = "resolved: the alert is marked resolved"
                update.status = prev.status = "resolved"
                update.ends_at = prev.resolved_at = alert.ends_at or now
                prev_group.firing_count = max(0, prev_group.firing_count - 1)
                if prev_group.firing_count == 0:
                    prev_group.status = "resolved"
                    _close(open_groups, prev_group)
            else:
                action = "duplicate"
                reason = f"duplicate of alert {prev.id} ({prev.count} notifications); nothing new starts"
                if prev_group.status == "open":
                    prev_group.last_alert_at = now
            touch(prev_group)
            plan.decisions.append(Decision(prev.id, prev_group.id, alert.fingerprint, action, prev_group.tier, reason))
            continue

        alert_id = new_id()
        group, why = _group_to_join(alert, prev, prev_group, now, settings, open_groups, groups_by_id, linked)
        if group is not None:
            action = "joined_group"
            reason = f"{why}; {decision.reason}"
            group.status = "open"
            group.services.add(alert.service)
            open_groups[alert.service] = group
            group.alert_count += 1
            group.last_alert_at = now
            if group.investigation_failed and alert.severity.rank < group.severity.rank:
                group.has_investigation = group.investigation_failed = False
                reason += "; its investigation had failed: a more severe alert starts a new one"
            _escalate(group, alert, decision.tier, decision.human, decision.reason)
        else:
            action = "new_group"
            reason = f"new group for {alert.service}; {decision.reason}"
            group = GroupState(
                id=new_id(),
                service=alert.service,
                status="open",
                tier=decision.tier,
                human=decision.human,
                severity=alert.severity,
                reason=decision.reason,
                opened_at=now,
                last_alert_at=now,
                alert_count=1,
                firing_count=0,
                has_investigation=False,
                is_new=True,
            )
            groups_by_id[group.id] = group
            open_groups[alert.service] = group
        if alert.status == "firing":
            group.firing_count += 1
        elif group.firing_count == 0:
            group.status = "resolved"  # a resolution for an alert never seen firing
            _close(open_groups, group)
        touch(group)
        known[alert.fingerprint] = KnownAlert(alert_id, alert.fingerprint, group.id, alert.status, 1)
        plan.new_alerts.append(NewAlert(alert_id, alert, group.id, decision.tier, position))
        plan.decisions.append(Decision(alert_id, group.id, alert.fingerprint, action, decision.tier, reason))
        if group.status == "open" and not group.has_investigation and TIER_ORDER[group.tier] >= 1:
            group.has_investigation = True
            plan.investigate.append(group)
    return plan
