"""Dedup and grouping as a pure function: alerts + what the database knows -> a routing plan.

- Same fingerprint, still firing: the stored alert's count and last_seen move,
  nothing new starts (`duplicate`).
- `resolved` for a firing alert marks it resolved (`resolved`); a group whose
  alerts are all resolved is resolved.
- Otherwise a new alert joins the open group of its service that saw an alert
  within `router.group_window` (`joined_group`), or opens a new group
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
from datetime import datetime
from typing import Literal

from rootward.domain.alert import Alert, Severity, Tier
from rootward.ingest.settings import RouterSettings
from rootward.ingest.tiers import TIER_ORDER, TierRules, more_severe

Action = Literal["new_group", "joined_group", "duplicate", "resolved"]


@dataclass
class KnownAlert:
    """The latest stored occurrence of a fingerprint."""

    id: str
    fingerprint: str
    group_id: str
    status: str
    count: int


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


def route(
    alerts: Sequence[Alert],
    *,
    now: datetime,
    known: dict[str, KnownAlert],
    groups_by_id: dict[str, GroupState],
    open_groups: dict[str, GroupState],
    settings: RouterSettings,
    new_id: Callable[[], str],
) -> RoutingPlan:
    """Route a batch in order; `known`, `groups_by_id` and `open_groups` are updated in place.

    `open_groups` maps a service to its newest open group (any age: the window
    is checked here); `groups_by_id` holds the groups of the `known` alerts.
    """
    plan = RoutingPlan()
    rules = TierRules(settings)
    window_start = now - settings.group_window

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
                update.ends_at = alert.ends_at or now
                prev_group.firing_count = max(0, prev_group.firing_count - 1)
                if prev_group.firing_count == 0:
                    prev_group.status = "resolved"
                    open_groups.pop(prev_group.service, None)
            else:
                action = "duplicate"
                reason = f"duplicate of alert {prev.id} ({prev.count} notifications); nothing new starts"
                if prev_group.status == "open":
                    prev_group.last_alert_at = now
            touch(prev_group)
            plan.decisions.append(Decision(prev.id, prev_group.id, alert.fingerprint, action, prev_group.tier, reason))
            continue

        alert_id = new_id()
        group = open_groups.get(alert.service)
        if group is not None and group.status == "open" and group.last_alert_at >= window_start:
            action = "joined_group"
            reason = f"joined open group of {alert.service} (last alert within the window); {decision.reason}"
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
            open_groups.pop(alert.service, None)
        touch(group)
        known[alert.fingerprint] = KnownAlert(alert_id, alert.fingerprint, group.id, alert.status, 1)
        plan.new_alerts.append(NewAlert(alert_id, alert, group.id, decision.tier, position))
        plan.decisions.append(Decision(alert_id, group.id, alert.fingerprint, action, decision.tier, reason))
        if group.status == "open" and not group.has_investigation and TIER_ORDER[group.tier] >= 1:
            group.has_investigation = True
            plan.investigate.append(group)
    return plan
