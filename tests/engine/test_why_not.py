from __future__ import annotations

from rootward.domain.investigation import EvidenceItem, HypothesisOut, InvestigationResult, RuledOut
from rootward.engine.why_not import why_not

RESULT = InvestigationResult(
    bundle="b",
    status="validated",
    hypotheses=[
        HypothesisOut(id="H1", entity="catalog", fault_type="deploy_regression", status="validated", confidence=0.9,
                      evidence=["E1"]),
        HypothesisOut(id="H2", entity="payment-db", fault_type="db_lock_contention", status="invalidated",
                      confidence=0.1, evidence=["E2"]),
    ],
    ruled_out=[RuledOut(entity="cache", fault_type="memory_leak", reason="memory flat", evidence=["E3"])],
    evidence={
        "E1": EvidenceItem(kind="change", cite="changes.json:d-1", excerpt="deploy d-1 on catalog"),
        "E2": EvidenceItem(kind="metric", cite="metrics.csv:payment-db/lock_wait@1-2", excerpt="lock wait flat"),
        "E3": EvidenceItem(kind="metric", cite="metrics.csv:cache/memory@1-2", excerpt="memory flat"),
        "E4": EvidenceItem(kind="log", cite="logs.jsonl:9", excerpt="queue worker restarted"),
    },
)  # fmt: skip


def test_a_tested_candidate_is_compared_with_the_leader_on_its_own_evidence() -> None:
    reply = why_not(RESULT, "payment-db")
    assert reply.text == (
        "payment-db (db_lock_contention) was tested: invalidated, confidence 0.10; "
        "the leader is catalog (deploy_regression) at 0.90 [E2]"
    )
    assert reply.evidence == ("E2",)


def test_a_ruled_out_cause_gives_the_reason_and_the_fault_type_matches_with_spaces() -> None:
    assert why_not(RESULT, "memory leak").text == "cache (memory_leak) was ruled out: memory flat [E3]"


def test_the_leader_is_said_to_be_the_leader() -> None:
    assert why_not(RESULT, "catalog").text.startswith("catalog (deploy_regression) is the leading hypothesis")


def test_something_never_tested_is_said_so_with_any_evidence_that_names_it() -> None:
    named = why_not(RESULT, "queue worker")
    assert named.text.startswith("queue worker was not a candidate") and named.evidence == ("E4",)
    unknown = why_not(RESULT, "kafka")
    assert unknown.evidence == () and "holds no evidence about kafka" in unknown.text
