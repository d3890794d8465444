"""The action ladder: which tier (L0-L3) an alert earns, by ordered rules over severity × event type.

Rules come from `router.tiers` in the configuration (defaults: the seed ADR
"Agent Action Ladder"); the first rule whose conditions all hold wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rootward.domain.alert import Alert, Severity, Tier
from rootward.ingest.settings import RouterSettings, TierRule

TIER_ORDER = {Tier.L0: 0, Tier.L1: 1, Tier.L2: 2, Tier.L3: 3}


@dataclass(frozen=True)
class TierDecision:
    tier: Tier
    human: bool
    reason: str

    @property
    def investigates(self) -> bool:
        return TIER_ORDER[self.tier] >= TIER_ORDER[Tier.L1]


def has_context(alert: Alert, context_keys: Sequence[str]) -> bool:
    """Does an annotation carry a trace or a log excerpt (key listed, or listed key + `_suffix`)?"""
    for key, value in alert.annotations.items():
        if not value:
            continue
        k = key.lower()
        if k in context_keys or any(k.startswith(c + "_") for c in context_keys):
            return True
    return False


def event_type(alert: Alert, context_keys: Sequence[str]) -> str:
    if alert.status == "resolved":
        return "resolved"
    return "firing_with_context" if has_context(alert, context_keys) else "firing"


def _matches(rule: TierRule, alert: Alert, event: str, l2_names: frozenset[str]) -> bool:
    if rule.severity and alert.severity not in rule.severity:
        return False
    if rule.event and event not in rule.event:
        return False
    return rule.in_l2_list is None or (alert.name in l2_names) == rule.in_l2_list


class TierRules:
    """The tier rules of one configuration, prepared once for a whole batch of alerts."""

    def __init__(self, settings: RouterSettings) -> None:
        self.rules = list(settings.tiers)
        self.context_keys = [c.lower() for c in settings.context_annotations]
        self.l2_names = frozenset(settings.l2_alertnames)

    def decide(self, alert: Alert) -> TierDecision:
        event = event_type(alert, self.context_keys)
        for rule in self.rules:
            if _matches(rule, alert, event, self.l2_names):
                reason = rule.reason or f"rule: severity {alert.severity.value}, event {event} -> {rule.tier.value}"
                return TierDecision(rule.tier, rule.human, reason)
        return TierDecision(Tier.L0, False, f"no tier rule matched severity {alert.severity.value}, event {event}")


def decide_tier(alert: Alert, settings: RouterSettings) -> TierDecision:
    return TierRules(settings).decide(alert)


def more_severe(a: Severity, b: Severity) -> Severity:
    return a if a.rank <= b.rank else b
