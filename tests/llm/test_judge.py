"""The deterministic judge rubric: same result, same scores; each dimension moves for its reason."""

from __future__ import annotations

import pytest

from rootward.domain.investigation import Claim, EvidenceItem, HypothesisOut, InvestigationResult
from rootward.engine.entry_point import investigate_bundle
from rootward.llm.judge import DIMENSIONS, rubric
from tests.conftest import EXAMPLES


def _result(**kw: object) -> InvestigationResult:
    base: dict[str, object] = {
        "bundle": "b",
        "status": "validated",
        "hypotheses": [
            HypothesisOut(
                id="H1",
                entity="db",
                fault_type="disk_full",
                status="validated",
                confidence=1.0,
                evidence=["E1", "E2", "E3"],
            ),
            HypothesisOut(id="H2", entity="api", fault_type="oom_kill", status="inconclusive", confidence=0.3),
        ],
        "claims": [Claim(text="db disk is full", evidence=["E1"])],
        "evidence": {f"E{i}": EvidenceItem(kind="log", cite=f"logs.jsonl:{i}") for i in (1, 2, 3)},
    }
    return InvestigationResult.model_validate({**base, **kw})


def test_a_well_grounded_validated_result_scores_high_and_the_same_every_time() -> None:
    scores = rubric(_result())
    assert scores == rubric(_result())
    assert scores.evidence_grounding == 1.0 and scores.calibration == 1.0 and scores.clarity == 1.0
    assert scores.root_cause_specificity == 1.0
    assert scores.actionability == 0.5  # names the top entity, proposes nothing
    assert scores.overall == pytest.approx(0.9)
    assert set(scores.to_dict()) == {*DIMENSIONS, "judge", "overall"}


def test_claims_citing_missing_evidence_lose_grounding_and_clarity() -> None:
    bad = rubric(_result(claims=[Claim(text="db disk is full", evidence=["E9"])]))
    assert bad.evidence_grounding == 0.5
    assert bad.clarity < 1.0


def test_confidence_without_support_is_miscalibrated() -> None:
    overconfident = _result(
        hypotheses=[
            HypothesisOut(
                id="H1", entity="db", fault_type="disk_full", status="inconclusive", confidence=0.9, evidence=["E1"]
            ),
        ]
    )
    scores = rubric(overconfident)
    assert scores.calibration == pytest.approx(1 - abs(0.9 - (1 / 3) * 0.5), abs=1e-4)
    assert scores.root_cause_specificity < 1.0


def test_an_empty_result_scores_zero_where_it_says_nothing() -> None:
    empty = rubric(InvestigationResult(bundle="b", status="inconclusive"))
    assert (empty.evidence_grounding, empty.root_cause_specificity, empty.actionability) == (0.0, 0.0, 0.0)
    assert empty.calibration == 1.0  # inconclusive with no hypothesis claims no confidence


def test_a_real_investigation_is_scored_in_range() -> None:
    result = investigate_bundle(EXAMPLES / "shop-deploy-regression-01")
    scores = rubric(result)
    assert all(0.0 <= getattr(scores, d) <= 1.0 for d in DIMENSIONS)
    assert scores.evidence_grounding > 0.5


def test_a_configured_judge_model_scores_and_an_invalid_one_falls_back_to_the_rubric() -> None:
    import json

    from pydantic import SecretStr

    from rootward.llm.client import LLMClient
    from rootward.llm.judge import judge
    from rootward.llm.settings import LLMSettings
    from tests.fixtures.fake_llm import FakeLLMServer

    with FakeLLMServer() as server:
        settings = LLMSettings(provider="openai", base_url=server.base_url, api_key=SecretStr("t"), model="judge-m")
        server.script.append(json.dumps(dict.fromkeys(DIMENSIONS, 0.25)))
        scored = judge(_result(), LLMClient(settings))
        assert scored.judge == "model:judge-m" and scored.overall == 0.25
        assert "db disk_full: validated" in server.requests[0]["body"]["messages"][1]["content"]
        server.script.extend(["not json", json.dumps({"clarity": 7})])
        assert judge(_result(), LLMClient(settings)) == rubric(_result())
    assert judge(_result()) == rubric(_result())
