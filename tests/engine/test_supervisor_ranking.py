"""The supervisor (`engine/supervisor.py`): a hypothesis's status from the findings, the re-ranking, widening."""

from __future__ import annotations

import time

from rootward.domain.evidence import EvidenceRef
from rootward.domain.hypothesis import Hypothesis, renumbered
from rootward.domain.investigation import Finding
from rootward.engine.budget import Budget, BudgetLimits
from rootward.engine.supervisor import EXPANDED_HOPS, assess, direct_verdict, should_expand, status_of

LOG = EvidenceRef("log", "logs.jsonl:12", "no space left on device")


def _finding(specialist: str, status: str, hypothesis_id: str = "H1") -> Finding:
    return Finding(hypothesis_id, status, (LOG,), 0.8, f"{specialist} says {status}", specialist=specialist)  # type: ignore[arg-type]


def _hypothesis(hid: str, entity: str, prior: float, fault: str = "disk_full") -> Hypothesis:
    return Hypothesis(hid, entity, fault, prior, [LOG])


def test_topology_ruling_a_hypothesis_out_overrides_direct_evidence_for_it() -> None:
    assert direct_verdict([_finding("metrics", "validated"), _finding("topology", "invalidated")]) == "invalidated"


def test_direct_specialists_disagreeing_is_a_split_and_none_speaking_is_silence() -> None:
    assert direct_verdict([_finding("metrics", "validated"), _finding("logs", "invalidated")]) == "split"
    assert direct_verdict([_finding("runbooks", "validated"), _finding("topology", "validated")]) == "silent"
    assert direct_verdict([_finding("changes", "invalidated")]) == "invalidated"


def test_hypothesis_no_specialist_reached_is_untested() -> None:
    assert status_of([]) == "untested"


def test_silent_direct_evidence_is_inconclusive_unless_the_model_specialist_decides_with_cites() -> None:
    silent = [_finding("runbooks", "validated")]
    assert status_of(silent) == "inconclusive"
    assert status_of([*silent, _finding("model", "invalidated")]) == "invalidated"
    assert status_of([*silent, _finding("model", "inconclusive")]) == "inconclusive"


def test_split_direct_evidence_stays_validated_without_a_model_and_follows_the_model_with_one() -> None:
    split = [_finding("metrics", "validated"), _finding("logs", "invalidated")]
    assert status_of(split) == "validated"
    assert status_of([*split, _finding("model", "invalidated")]) == "invalidated"


def test_model_specialist_cannot_overrule_direct_evidence() -> None:
    assert status_of([_finding("metrics", "validated"), _finding("model", "invalidated")]) == "validated"


def test_validated_hypothesis_outranks_an_untested_one_with_a_higher_prior() -> None:
    hypotheses = [_hypothesis("H1", "api", 0.55), _hypothesis("H2", "db", 0.45)]
    ranked = assess(hypotheses, [_finding("metrics", "validated", "H2"), _finding("logs", "validated", "H2")])
    assert [(a.hypothesis.id, a.status) for a in ranked] == [("H2", "validated"), ("H1", "untested")]
    assert ranked[0].confidence > ranked[1].confidence


def test_invalidated_leader_drops_below_an_inconclusive_rival() -> None:
    hypotheses = [_hypothesis("H1", "api", 0.5), _hypothesis("H2", "db", 0.3)]
    ranked = assess(hypotheses, [_finding("metrics", "invalidated", "H1"), _finding("runbooks", "validated", "H2")])
    assert [(a.hypothesis.id, a.status) for a in ranked] == [("H2", "inconclusive"), ("H1", "invalidated")]


def test_supported_but_far_weaker_hypothesis_is_consistent_with_the_evidence_not_validated() -> None:
    hypotheses = [_hypothesis("H1", "db", 0.8), _hypothesis("H2", "api", 0.2, "deploy_regression")]
    findings = [_finding("metrics", "validated", "H1"), _finding("changes", "validated", "H2")]
    ranked = {a.hypothesis.id: a for a in assess(hypotheses, findings)}
    assert ranked["H1"].status == "validated"
    assert ranked["H2"].status == "inconclusive"
    assert ranked["H2"].notes == ["supported, but explains much less than H1"]


def test_more_direct_specialists_agreeing_make_a_validated_hypothesis_score_higher() -> None:
    one = assess([_hypothesis("H1", "db", 0.5)], [_finding("metrics", "validated")])[0]
    three = assess(
        [_hypothesis("H1", "db", 0.5)],
        [_finding("metrics", "validated"), _finding("logs", "validated"), _finding("changes", "validated")],
    )[0]
    assert three.score > one.score
    assert three.confidence > one.confidence


def test_confidence_is_bounded_and_falls_with_a_strong_rival_at_another_entity() -> None:
    alone = assess([_hypothesis("H1", "db", 0.9)], [_finding("metrics", "validated")])[0]
    contested = assess(
        [_hypothesis("H1", "db", 0.9), _hypothesis("H2", "api", 0.9, "deploy_regression")],
        [_finding("metrics", "validated", "H1"), _finding("metrics", "validated", "H2")],
    )
    assert 0.02 <= contested[0].confidence < alone.confidence <= 0.95


def test_nothing_validated_with_budget_left_widens_the_scope_once() -> None:
    ranked = assess([_hypothesis("H1", "db", 0.5)], [_finding("runbooks", "validated")])
    fresh = Budget(BudgetLimits(wall_clock_s=300), started_at=time.time())
    assert should_expand(ranked, fresh, hops=2)
    assert not should_expand(ranked, fresh, hops=EXPANDED_HOPS)  # already widened


def test_scope_is_not_widened_when_something_is_validated_or_the_budget_is_spent() -> None:
    validated = assess([_hypothesis("H1", "db", 0.5)], [_finding("metrics", "validated")])
    undecided = assess([_hypothesis("H1", "db", 0.5)], [])
    fresh = Budget(BudgetLimits(wall_clock_s=300), started_at=time.time())
    late = Budget(BudgetLimits(wall_clock_s=300), started_at=time.time() - 200)
    exhausted = Budget(BudgetLimits(), started_at=time.time(), exhausted="all 20 model calls used")
    assert not should_expand(validated, fresh, hops=2)
    assert not should_expand(undecided, late, hops=2)  # past half the wall clock
    assert not should_expand(undecided, exhausted, hops=2)


def test_a_weaker_hypothesis_with_broader_support_is_never_more_confident_than_the_leader() -> None:
    hypotheses = [_hypothesis("H1", "host", 0.6, "cpu_saturation"), _hypothesis("H2", "cart", 0.4, "deploy_regression")]
    findings = [_finding("metrics", "validated", "H1")] + [
        _finding(s, "validated", "H2") for s in ("metrics", "changes", "logs")
    ]
    ranked = assess(hypotheses, findings)
    assert [a.hypothesis.id for a in ranked] == ["H1", "H2"]
    assert [a.status for a in ranked] == ["validated", "validated"]
    assert ranked[1].confidence <= ranked[0].confidence


def test_a_victim_supported_more_broadly_stays_below_its_validated_cause() -> None:
    """A caller redeployed minutes before a vendor refused its connections: its deploy, its spans' errors and
    its lines are all there to validate, the vendor has its callers' lines only.

    Breadth of support lifted the caller above the vendor, which the ranking had put first and read
    the caller as the victim of; it now lands just under. With the vendor invalidated the victim reading has nothing
    under it, and the caller keeps its score.
    """
    vendor = _hypothesis("H1", "fx-vendor", 0.52, "dependency_down")
    caller = Hypothesis("H2", "fx-rates", "deploy_regression", 0.48, [LOG], victim_of="fx-vendor")
    supports = [_finding(s, "validated", "H2") for s in ("metrics", "logs", "traces", "changes")]
    ranked = assess([vendor, caller], [_finding("logs", "validated", "H1"), *supports])
    assert [a.hypothesis.id for a in ranked] == ["H1", "H2"]
    assert ranked[1].status == "validated"  # a reading of its own still, just under its cause
    assert ranked[1].notes == ["its evidence passes on fx-vendor's failure, which is validated"]
    ranked = assess([vendor, caller], [_finding("logs", "invalidated", "H1"), *supports])
    assert [a.hypothesis.id for a in ranked] == ["H2", "H1"]


def test_a_victim_the_ranking_put_first_all_the_same_keeps_its_place() -> None:
    """A service leaking its pool's connections read as a victim of its database, yet ranked first on its
    own evidence: the ranking kept no order to hold, and the database validated too changes nothing."""
    leaker = Hypothesis("H1", "configs", "connection_pool_exhaustion", 0.6, [LOG], victim_of="configs-db")
    db = _hypothesis("H2", "configs-db", 0.4, "connection_pool_exhaustion")
    findings = [_finding(s, "validated", "H1") for s in ("metrics", "logs")] + [_finding("logs", "validated", "H2")]
    ranked = assess([leaker, db], findings)
    assert [a.hypothesis.id for a in ranked] == ["H1", "H2"]
    assert ranked[0].notes == []


def test_a_ranking_renumbered_after_drops_keeps_each_hypothesis_s_victim_reading() -> None:
    """The scope and headroom filters renumber what they keep; the victim reading must survive them."""
    kept = renumbered(
        [
            Hypothesis("H2", "fx-vendor", "dependency_down", 0.3, [LOG]),
            Hypothesis("H4", "fx-rates", "deploy_regression", 0.1, [LOG], victim_of="fx-vendor"),
        ]
    )
    assert [(h.id, h.prior, h.victim_of) for h in kept] == [("H1", 0.75, None), ("H2", 0.25, "fx-vendor")]
