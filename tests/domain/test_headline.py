"""The headline card: verdict, cause with mechanism, since when, confidence, the action; alternatives are not causes."""

from __future__ import annotations

from datetime import UTC, datetime

from rootward.domain.headline import headline, hypothesis_label, onset_text
from rootward.domain.investigation import EvidenceItem, HypothesisOut, InvestigationResult
from rootward.domain.proposal import ProposedAction
from rootward.domain.proposal_state import ProposalState

FIRED = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)


def _result(
    *hypotheses: tuple[str, str, str, float], status: str = "validated", **extra: object
) -> InvestigationResult:
    hs = [
        HypothesisOut(id=f"H{i + 1}", entity=e, fault_type=f, status=s, confidence=c, evidence=["E1", "E9"])  # type: ignore[arg-type]
        for i, (e, f, s, c) in enumerate(hypotheses)
    ]
    evidence = {"E1": EvidenceItem(kind="change", cite="changes.json:config-7596")}
    return InvestigationResult(bundle="b", status=status, hypotheses=hs, evidence=evidence, **extra)  # type: ignore[arg-type]


def test_a_trigger_names_its_mechanism_and_the_card_says_since_when() -> None:
    result = _result(
        ("payment", "config_error", "validated", 0.84),
        ("payment", "connection_pool_exhaustion", "inconclusive", 0.41),
        ("checkout", "network_latency", "validated", 0.3),
        onset=datetime(2026, 3, 14, 11, 56, 30, tzinfo=UTC),
        fired_at=FIRED,
    )
    action = ProposalState(
        ProposedAction.of("config_change", "payment", revert="config-7596"), "pending", approval_id="a1"
    )
    card = headline(result, action)
    assert card.verdict == "Root cause found"
    assert card.root_cause == "a bad configuration change at payment (config_error)"
    assert card.mechanism == "connection pool exhaustion"
    assert card.since == "since 11:56 UTC, 4 min before the alert"
    assert card.confidence == 0.84 and card.clear
    assert card.evidence == ["E1"]  # only ids the result holds
    assert (card.action, card.approval_id, card.action_note) == (
        "revert config-7596 on payment",
        "a1",
        "no executor configured: approving records the decision only",
    )


def test_a_trigger_acts_only_through_what_it_can_break_at_its_own_entity() -> None:
    """Another reading of the same signals at the entity (a dependency down, added latency) is no mechanism."""
    result = _result(
        ("frontend", "deploy_regression", "validated", 0.65),
        ("frontend", "dependency_down", "validated", 0.23),
        ("frontend", "network_latency", "inconclusive", 0.2),
        ("frontend", "cpu_saturation", "inconclusive", 0.1),
    )
    assert headline(result).mechanism == "CPU saturation"
    alone = _result(
        ("frontend", "deploy_regression", "validated", 0.65), ("frontend", "dependency_down", "validated", 0.2)
    )
    assert headline(alone).mechanism == ""


def test_competing_validated_hypotheses_are_not_all_shown_as_validated() -> None:
    result = _result(("db", "disk_full", "validated", 0.8), ("api", "deploy_regression", "validated", 0.7))
    assert [hypothesis_label(result, i) for i in range(2)] == ["validated", "consistent, weaker"]
    assert not headline(result).clear  # a close second cause elsewhere: keep the hypotheses open


def test_a_failed_or_unconfirmed_investigation_says_so() -> None:
    assert headline(_result(status="failed")).verdict == "Investigation failed"
    unsure = headline(_result(("db", "disk_full", "inconclusive", 0.4), status="inconclusive"))
    assert unsure.verdict == "Likely root cause, not confirmed" and not unsure.clear
    assert headline(_result(no_fault=True)).verdict == "No current fault"


def test_an_onset_after_the_alert_is_not_a_negative_lead() -> None:
    assert onset_text(datetime(2026, 3, 14, 12, 4, tzinfo=UTC), FIRED) == "12:04, 4 min after the alert time"
    assert onset_text(datetime(2026, 3, 14, 11, 57, tzinfo=UTC), FIRED) == "11:57, 3 min before the alert time"
