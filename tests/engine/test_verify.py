"""The verifier: dangling ids, unresolvable cites, contradictions, calibration; the gates."""

from __future__ import annotations

from rootward.domain.evidence import EvidenceRef
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Claim, EvidenceItem, Finding, HypothesisOut, InvestigationResult
from rootward.engine.confidence_gates import apply_gates
from rootward.engine.supervisor import Assessment
from rootward.engine.verify import check_result, repair_result, verify

GOOD = "metrics.csv:payment/latency_p99_ms@100-200"
BAD = "metrics.csv:payment/latency_p99_ms@900-999"


class Resolver:
    def resolves(self, cite: str) -> bool:
        return cite != BAD


def _metric(cite: str, direction: str) -> EvidenceRef:
    return EvidenceRef("metric", cite, f"payment latency_p99_ms {direction} from 100 to 900")


def _assessment(findings: list[Finding], confidence: float = 0.6) -> Assessment:
    h = Hypothesis("H1", "payment", "network_latency", 0.5, [_metric(GOOD, "up")])
    return Assessment(h, "validated", 0.5, confidence, findings)


def test_dangling_evidence_id_in_a_claim_is_caught() -> None:
    result = InvestigationResult(
        bundle="b",
        status="validated",
        hypotheses=[
            HypothesisOut(
                id="H1", entity="x", fault_type="disk_full", status="validated", confidence=0.6, evidence=["E1"]
            )
        ],
        claims=[Claim(text="x filled its disk.", evidence=["E1", "E9"])],
        evidence={"E1": EvidenceItem(kind="metric", cite=GOOD)},
    )
    assert check_result(result, Resolver()) == ["dangling evidence id: E9"]


def test_unresolvable_cite_is_caught_and_repaired_away() -> None:
    result = InvestigationResult(
        bundle="b",
        status="validated",
        claims=[Claim(text="a", evidence=["E1"]), Claim(text="b", evidence=["E2"])],
        evidence={"E1": EvidenceItem(kind="metric", cite=GOOD), "E2": EvidenceItem(kind="metric", cite=BAD)},
    )
    assert any("does not resolve" in p for p in check_result(result, Resolver()))
    repaired = repair_result(result, Resolver())
    assert check_result(repaired, Resolver()) == []
    assert [c.text for c in repaired.claims] == ["a"]


def test_unresolvable_finding_evidence_demotes_the_finding() -> None:
    f = Finding("H1", "validated", (_metric(BAD, "up"),), 0.8, "latency rose", "metrics", ("metric_anomalies()",))
    a = _assessment([f])
    v = verify([a], Resolver())
    assert any("does not resolve" in p for p in v.problems)
    assert a.findings[0].status == "inconclusive" and a.status == "inconclusive"
    assert v.ok


def test_contradicting_validated_findings_are_caught_and_demoted() -> None:
    up = Finding("H1", "validated", (_metric(GOOD, "up"),), 0.8, "rose", "metrics", ("t()",))
    down = Finding("H1", "validated", (_metric(GOOD, "down"),), 0.8, "fell", "logs", ("t()",))
    a = _assessment([up, down])
    v = verify([a], Resolver())
    assert any("contradict" in p for p in v.problems)
    assert all(f.status == "inconclusive" for f in a.findings)


def test_confidence_is_capped_by_the_breadth_of_evidence() -> None:
    one = Finding("H1", "validated", (EvidenceRef("log", "logs.jsonl:7", "x"),), 0.9, "one line", "logs", ("t()",))
    a = _assessment([one], confidence=0.95)
    verify([a], Resolver())
    assert a.confidence <= 0.55


def test_symptoms_alone_are_flagged_for_a_human_but_a_mechanism_is_not() -> None:
    latency = _metric(GOOD, "up")
    errors = EvidenceRef("metric", "metrics.csv:payment/error_rate@100-200", "payment error_rate up from 0 to 0.2")
    edge = EvidenceRef("topology", "topology.yaml:checkout->payment", "checkout depends_on payment")
    cpu = EvidenceRef("metric", "metrics.csv:payment/cpu_usage@100-200", "payment cpu_usage up from 0.2 to 0.99")
    symptoms = [
        Finding("H1", "validated", (latency, errors), 0.8, "slower and failing", "metrics", ("t()",)),
        Finding("H1", "validated", (edge,), 0.6, "reaches the alerts", "topology", ("t()",)),
    ]
    a = _assessment(symptoms, confidence=0.75)
    verify([a], Resolver())
    assert a.confidence == 0.65 and apply_gates(a.confidence, symptoms).needs_human
    mechanism = [*symptoms, Finding("H1", "validated", (cpu,), 0.8, "cpu pinned", "metrics", ("t()",))]
    b = _assessment(mechanism, confidence=0.75)
    verify([b], Resolver())
    assert b.confidence == 0.75 and not apply_gates(b.confidence, mechanism).needs_human


def test_confidence_gates() -> None:
    backed = [Finding("H1", "validated", (EvidenceRef("log", "logs.jsonl:1"),), 0.9, "s", "logs", ("t()",))]
    assert apply_gates(0.4, backed).analysis_only
    low = apply_gates(0.6, backed)
    assert low.needs_human and not low.analysis_only
    high = apply_gates(0.85, backed)
    assert not high.needs_human and not high.evidence_missing and high.confidence == 0.85
    unbacked = apply_gates(0.9, [Finding("H1", "validated", (), 0.9, "s", "logs", ())])
    assert unbacked.evidence_missing and unbacked.confidence < 0.8
