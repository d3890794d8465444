from __future__ import annotations

from rootward.domain.investigation import Claim, EvidenceItem, InvestigationResult
from rootward.engine.followup import answer

RESULT = InvestigationResult(
    bundle="b",
    status="validated",
    claims=[
        Claim(text="Deploy deploy-3815 on catalog landed 3 min before the onset.", evidence=["E3"]),
        Claim(text="catalog error rate rose from 0.1% to 12%.", evidence=["E2"]),
    ],
    evidence={
        "E2": EvidenceItem(kind="metric", cite="metrics.csv:catalog/error_rate@1-2", excerpt="error_rate up"),
        "E3": EvidenceItem(kind="change", cite="changes.json:deploy-3815", excerpt="deploy v3.6.0 on catalog"),
    },
)


def test_a_deploy_question_is_answered_with_the_change_and_its_citation() -> None:
    reply = answer(RESULT, "what was deployed before the incident?")
    assert reply.text.splitlines()[0].startswith("Deploy deploy-3815")
    assert "E3" in reply.evidence


def test_every_cited_id_exists_in_the_investigation() -> None:
    for question in ("error rate?", "which metrics moved", "deploy"):
        assert set(answer(RESULT, question).evidence) <= set(RESULT.evidence)


def test_a_question_the_evidence_cannot_answer_says_so() -> None:
    reply = answer(RESULT, "kubernetes quota xyz")
    assert reply.evidence == () and "does not know" in reply.text
