from __future__ import annotations

from datetime import UTC, datetime

import pytest

from rootward.domain.alert import Alert, Severity, Tier
from rootward.ingest.tiers import decide_tier
from rootward.settings import RouterSettings, TierRule


def alert(severity: Severity, name: str = "Whatever", status: str = "firing", **annotations: str) -> Alert:
    return Alert(
        fingerprint="f",
        name=name,
        service="checkout",
        severity=severity,
        status=status,  # type: ignore[arg-type]
        starts_at=datetime(2026, 1, 1, tzinfo=UTC),
        annotations=annotations,
    )


@pytest.mark.parametrize(
    ("given", "tier", "human"),
    [
        (alert(Severity.P3), Tier.L0, False),
        (alert(Severity.P1, status="resolved"), Tier.L0, False),
        (alert(Severity.P2), Tier.L0, False),
        (alert(Severity.P2, summary="cpu high"), Tier.L0, False),
        (alert(Severity.P2, log_excerpt="ERROR pool exhausted"), Tier.L1, False),
        (alert(Severity.P2, trace_id="4bf92f35"), Tier.L1, False),
        (alert(Severity.P1, name="DiskAlmostFull"), Tier.L1, False),
        (alert(Severity.P1, name="HighErrorRate"), Tier.L2, False),
        (alert(Severity.P0), Tier.L2, True),
    ],
)
def test_default_ladder_matches_the_action_ladder_adr(given: Alert, tier: Tier, human: bool) -> None:
    decision = decide_tier(given, RouterSettings())
    assert (decision.tier, decision.human) == (tier, human)
    assert decision.reason


def test_catalog_annotation_is_not_mistaken_for_a_log_excerpt() -> None:
    assert decide_tier(alert(Severity.P2, catalog="x", login="y"), RouterSettings()).tier == Tier.L0


def test_rules_are_configurable_and_first_match_wins() -> None:
    settings = RouterSettings(
        tiers=[
            TierRule(severity=[Severity.P2], tier=Tier.L2, reason="all warnings investigated here"),
            TierRule(tier=Tier.L1),
        ]
    )
    assert decide_tier(alert(Severity.P2), settings).reason == "all warnings investigated here"
    assert decide_tier(alert(Severity.P3), settings).tier == Tier.L1


def test_no_matching_rule_means_l0_with_a_reason() -> None:
    decision = decide_tier(alert(Severity.P1), RouterSettings(tiers=[]))
    assert decision.tier == Tier.L0
    assert "no tier rule matched" in decision.reason
