"""Scores of a finished investigation on five dimensions: a judge model's, or a deterministic rubric's.

A judge model (any OpenAI-compatible endpoint, through `LLMClient`) scores the
published result; when none is configured, or it fails or answers invalidly
twice, the rubric scores it. The rubric is also the baseline a judge model is
compared with. Each dimension is in [0, 1] and
reads only the published result, so the same result always scores the same:

- evidence grounding: claims whose every evidence id resolves, and a top
  hypothesis that rests on evidence the result holds;
- root-cause specificity: a top hypothesis (entity and fault type), validated,
  and clearly ahead of the runner-up;
- actionability: proposed actions, else things ruled out or claims that name
  the top entity;
- calibration: the top confidence against the support it has (resolved
  evidence, its status);
- clarity: one to six claims, each short, no dangling evidence ids.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from pydantic import BaseModel, Field

from rootward.context.injection import guard, guard_field
from rootward.domain.investigation import HypothesisOut, InvestigationResult
from rootward.llm.client import LLMClient
from rootward.llm.prompts import render
from rootward.llm.types import LLMUnavailable

RUBRIC_VERSION = "rubric-1"
DIMENSIONS = ("evidence_grounding", "root_cause_specificity", "actionability", "calibration", "clarity")
MAX_CLAIM_CHARS = 300
STATUS_WEIGHT = {"validated": 1.0, "inconclusive": 0.5, "invalidated": 0.0}


@dataclass(frozen=True)
class JudgeScores:
    evidence_grounding: float
    root_cause_specificity: float
    actionability: float
    calibration: float
    clarity: float
    judge: str = RUBRIC_VERSION

    @property
    def overall(self) -> float:
        return round(sum(getattr(self, d) for d in DIMENSIONS) / len(DIMENSIONS), 4)

    def to_dict(self) -> dict[str, float | str]:
        return {**asdict(self), "overall": self.overall}


def _top(result: InvestigationResult) -> tuple[HypothesisOut | None, HypothesisOut | None]:
    live = [h for h in result.hypotheses if h.status != "invalidated"]
    return (live[0] if live else None), (live[1] if len(live) > 1 else None)


def grounding(result: InvestigationResult) -> float:
    top, _ = _top(result)
    parts = [1.0 if top is not None and any(e in result.evidence for e in top.evidence) else 0.0]
    if result.claims:
        held = [c for c in result.claims if c.evidence and all(e in result.evidence for e in c.evidence)]
        parts.append(len(held) / len(result.claims))
    return sum(parts) / len(parts)


def specificity(result: InvestigationResult) -> float:
    if result.no_fault or result.status == "no_fault":
        return 1.0 if result.evidence else 0.5  # "nothing is broken" is specific when it shows why
    top, second = _top(result)
    if top is None:
        return 0.0
    margin = top.confidence - (second.confidence if second is not None else 0.0)
    return 0.4 + 0.3 * STATUS_WEIGHT.get(top.status, 0.0) + 0.3 * min(1.0, max(0.0, margin) / 0.3)


def actionability(result: InvestigationResult) -> float:
    if result.proposals:
        return 1.0
    top, _ = _top(result)
    names_top = top is not None and any(top.entity in c.text for c in result.claims)
    return 0.5 if result.ruled_out or names_top else 0.0


def calibration(result: InvestigationResult) -> float:
    top, _ = _top(result)
    if top is None:
        return 1.0 if result.status in ("inconclusive", "no_fault") else 0.0
    resolved = sum(1 for e in top.evidence if e in result.evidence)
    support = min(1.0, resolved / 3) * STATUS_WEIGHT.get(top.status, 0.0)
    return 1.0 - abs(top.confidence - support)


def clarity(result: InvestigationResult) -> float:
    claims = result.claims
    count = 1.0 if 1 <= len(claims) <= 6 else 0.0
    short = sum(1 for c in claims if len(c.text) <= MAX_CLAIM_CHARS) / len(claims) if claims else 0.0
    dangling = 0.0 if result.dangling_evidence_ids() else 1.0
    return (count + short + dangling) / 3


def rubric(result: InvestigationResult) -> JudgeScores:
    """The deterministic scores of `result`, rounded so stored values compare exactly."""
    return JudgeScores(
        evidence_grounding=round(grounding(result), 4),
        root_cause_specificity=round(specificity(result), 4),
        actionability=round(actionability(result), 4),
        calibration=round(calibration(result), 4),
        clarity=round(clarity(result), 4),
    )


class ModelScores(BaseModel):
    evidence_grounding: float = Field(ge=0.0, le=1.0)
    root_cause_specificity: float = Field(ge=0.0, le=1.0)
    actionability: float = Field(ge=0.0, le=1.0)
    calibration: float = Field(ge=0.0, le=1.0)
    clarity: float = Field(ge=0.0, le=1.0)


def judge_user(result: InvestigationResult) -> str:
    hypotheses = [
        guard_field(f"{h.entity} {h.fault_type}: {h.status}, confidence {h.confidence:.2f}, {len(h.evidence)} evidence")
        for h in result.hypotheses[:5]
    ]
    claims = "\n".join(f"{c.text} [{', '.join(c.evidence)}]" for c in result.claims)
    return render("judge_user", status=result.status, hypotheses=hypotheses, claims=guard(claims, source="rca").text)


@dataclass(frozen=True)
class Judged:
    """Scores, and why the rubric stood in for a configured judge model ("" when it did not)."""

    scores: JudgeScores
    note: str = ""


def judge_noted(result: InvestigationResult, client: LLMClient | None = None) -> Judged:
    """The judge model's scores when one is configured and answers validly, else the rubric's with the reason."""
    if client is None or not client.enabled:
        return Judged(rubric(result))
    try:
        answer = client.structured("judge", system=render("judge_system"), user=judge_user(result), schema=ModelScores)
    except LLMUnavailable as exc:
        return Judged(rubric(result), f"judge model unavailable ({exc}); rubric used")
    model = client.settings.model_for("P2")
    return Judged(JudgeScores(**{d: round(getattr(answer, d), 4) for d in DIMENSIONS}, judge=f"model:{model}"))


def judge(result: InvestigationResult, client: LLMClient | None = None) -> JudgeScores:
    """The judge model's scores when one is configured and answers validly, else the rubric's."""
    return judge_noted(result, client).scores
