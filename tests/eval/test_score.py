"""Scorer: AC@k, Avg@5, entity@k, citations and rates, checked against hand computation."""

from __future__ import annotations

from typing import Any

import pytest

from rootward.bundle.cites import CiteCheck
from rootward.domain.investigation import InvestigationResult
from rootward.eval.score import score_result, summarize
from rootward.eval.truth import Truth, parse_truth

TRUTH = Truth("payment-db", "connection_pool_exhaustion", also_acceptable=(("payment", "connection_pool_exhaustion"),))


def _result(hyps: list[tuple[str, str, str]], **extra: Any) -> InvestigationResult:
    return InvestigationResult.model_validate(
        {
            "bundle": "b",
            "status": extra.pop("status", "validated"),
            "hypotheses": [
                {"id": f"H{i}", "entity": e, "fault_type": f, "status": s, "confidence": 0.5}
                for i, (e, f, s) in enumerate(hyps, 1)
            ],
            **extra,
        }
    )


def _check(valid: set[str], about: dict[str, str] | None = None) -> Any:
    about = about or {}

    def check(cite: str) -> CiteCheck:
        ent = (about[cite],) if cite in about else ()
        return CiteCheck(cite, cite in valid, "" if cite in valid else "nope", ent)

    return check


def test_hit_at_rank_three_gives_ac3_but_not_ac1_and_avg5_of_three_fifths() -> None:
    res = _result(
        [
            ("checkout", "cpu_saturation", "validated"),
            ("payment-db", "db_lock_contention", "inconclusive"),
            ("payment-db", "connection_pool_exhaustion", "inconclusive"),
        ]
    )
    s = score_result(res, TRUTH, _check(set()))
    assert s.hit_rank == 3 and s.ac(1) == 0.0 and s.ac(3) == 1.0
    assert s.avg5 == pytest.approx(3 / 5)  # AC@1..5 = 0, 0, 1, 1, 1
    assert s.entity_rank == 2 and s.entity_at(1) == 0.0 and s.entity_at(3) == 1.0


def test_also_acceptable_pair_counts_as_a_hit() -> None:
    s = score_result(_result([("payment", "connection_pool_exhaustion", "validated")]), TRUTH, _check(set()))
    assert s.hit_rank == 1 and s.avg5 == 1.0


def test_right_entity_wrong_fault_is_an_entity_hit_only() -> None:
    s = score_result(_result([("payment-db", "disk_full", "validated")]), TRUTH, _check(set()))
    assert s.hit_rank is None and s.entity_rank == 1 and s.avg5 == 0.0


def test_invalidated_hypotheses_do_not_take_a_rank() -> None:
    res = _result(
        [("frontend", "traffic_surge", "invalidated"), ("payment-db", "connection_pool_exhaustion", "validated")]
    )
    assert score_result(res, TRUTH, _check(set())).hit_rank == 1


def test_citation_accuracy_claims_and_dangling_ids() -> None:
    res = _result(
        [("payment-db", "connection_pool_exhaustion", "validated")],
        claims=[{"text": "pool full", "evidence": ["E1", "E9"]}, {"text": "so what", "evidence": []}],
        evidence={
            "E1": {"kind": "log", "cite": "logs.jsonl:3"},
            "E2": {"kind": "metric", "cite": "metrics.csv:x/y@1-2"},
            "E3": {"kind": "change", "cite": "changes.json:nope"},
        },
    )
    s = score_result(res, TRUTH, _check({"logs.jsonl:3", "metrics.csv:x/y@1-2"}))
    assert (s.cites_total, s.cites_resolved) == (3, 2)
    assert (s.claims_total, s.claims_with_evidence) == (2, 1)
    assert s.dangling == ["E9"]
    assert s.bad_cites == ["changes.json:nope: nope"]


def test_inconclusive_with_truth_in_evidence_is_a_false_escalation() -> None:
    res = _result(
        [("checkout", "cpu_saturation", "inconclusive")],
        status="inconclusive",
        evidence={"E1": {"kind": "metric", "cite": "m1"}},
    )
    s = score_result(res, TRUTH, _check({"m1"}, {"m1": "payment-db"}))
    assert s.inconclusive and s.truth_in_evidence and s.false_escalation
    s2 = score_result(res, TRUTH, _check({"m1"}, {"m1": "checkout"}))
    assert s2.inconclusive and not s2.false_escalation


def test_summary_averages_by_hand() -> None:
    hit1 = score_result(_result([("payment-db", "connection_pool_exhaustion", "validated")]), TRUTH, _check(set()))
    hit2 = score_result(
        _result([("a", "disk_full", "validated"), ("payment", "connection_pool_exhaustion", "validated")]),
        TRUTH,
        _check(set()),
    )
    miss = score_result(_result([], status="failed"), TRUTH, _check(set()))
    hit1.first_hypothesis_ms, hit2.first_hypothesis_ms = 100, 300
    summary = summarize([hit1, hit2, miss])
    assert summary["ac@1"] == pytest.approx(0.3333, abs=1e-4)
    assert summary["ac@3"] == pytest.approx(0.6667, abs=1e-4)
    # Avg@5 per bundle: 1.0, 0.8, 0.0 -> 0.6
    assert summary["avg@5"] == pytest.approx(0.6)
    assert summary["failed_rate"] == pytest.approx(0.3333, abs=1e-4)
    assert summary["citation_accuracy"] is None
    assert summary["median_first_hypothesis_ms"] == 200.0


def test_truth_parser_reads_also_acceptable_and_rejects_bad_files() -> None:
    t = parse_truth(
        '{"root_cause": {"entity": "db", "fault_type": "disk_full"},'
        ' "also_acceptable": [{"entity": "node-3", "fault_type": "disk_full"}], "topology": "shop"}'
    )
    assert t.answers == (("db", "disk_full"), ("node-3", "disk_full")) and t.topology == "shop"
    with pytest.raises(ValueError, match="root_cause"):
        parse_truth('{"root": {}}')
    with pytest.raises(ValueError, match="also_acceptable item 0"):
        parse_truth('{"root_cause": {"entity": "a", "fault_type": "b"}, "also_acceptable": [{"entity": "x"}]}')


def test_no_fault_truth_is_read_in_its_three_spellings() -> None:
    for text in ('{"root_cause": null, "no_fault": true}', '{"status": "no_fault"}',
                 '{"root_cause": {"entity": "", "fault_type": "none"}}'):  # fmt: skip
        truth = parse_truth(text)
        assert truth.no_fault and truth.answers == ()


def test_healthy_bundle_is_a_hit_only_when_the_result_says_no_fault_and_stays_out_of_ac() -> None:
    healthy = parse_truth('{"root_cause": null, "no_fault": true}')
    right = score_result(
        _result([("api", "deploy_regression", "invalidated")], status="no_fault"), healthy, _check(set())
    )
    wrong = score_result(_result([("api", "deploy_regression", "validated")]), healthy, _check(set()))
    assert right.hit_rank == 1 and wrong.hit_rank is None and right.truth == "no_fault"
    fault_hit = score_result(_result([("payment-db", "connection_pool_exhaustion", "validated")]), TRUTH, _check(set()))
    fault_called_healthy = score_result(_result([], status="no_fault"), TRUTH, _check(set()))
    s = summarize([right, wrong, fault_hit, fault_called_healthy])
    assert s["bundles"] == 4 and s["fault_bundles"] == 2 and s["no_fault_bundles"] == 2
    assert s["ac@1"] == 0.5  # over the two fault bundles only
    assert s["no_fault_recall"] == 0.5 and s["false_no_fault_rate"] == 0.5
