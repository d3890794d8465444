"""Scoring one investigation against ground truth, and aggregating many.

Pure functions over an `InvestigationResult`, a `Truth` and a cite checker,
so every number in the report can be checked by hand in a unit test.

Ranking: the hypotheses in the order the result lists them (best first),
skipping those the investigation itself `invalidated`. AC@k is 1 when one of
the first k names a right (entity, fault_type) pair (the root cause or an
`also_acceptable` pair); entity@k only asks for the entity. Avg@5 is the mean
of AC@1..AC@5, as RCAEval defines it.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from rootward.bundle.cites import CiteCheck
from rootward.domain.investigation import InvestigationResult
from rootward.eval.truth import Truth

CiteChecker = Callable[[str], CiteCheck]
K_MAX = 5


@dataclass
class BundleScore:
    bundle: str
    topology: str
    fault_type: str
    truth: str  # "entity/fault_type"
    status: str
    top: list[str] = field(default_factory=list)  # the first hypotheses as "entity/fault_type"
    hit_rank: int | None = None
    entity_rank: int | None = None
    cites_total: int = 0
    cites_resolved: int = 0
    bad_cites: list[str] = field(default_factory=list)
    claims_total: int = 0
    claims_with_evidence: int = 0
    dangling: list[str] = field(default_factory=list)
    truth_in_evidence: bool = False
    first_hypothesis_ms: int | None = None
    total_ms: int = 0
    wall_ms: int = 0
    error: str | None = None
    no_fault_truth: bool = False  # a healthy bundle: right when the investigation said `no_fault`

    def ac(self, k: int) -> float:
        return 1.0 if self.hit_rank is not None and self.hit_rank <= k else 0.0

    def entity_at(self, k: int) -> float:
        return 1.0 if self.entity_rank is not None and self.entity_rank <= k else 0.0

    @property
    def avg5(self) -> float:
        return sum(self.ac(k) for k in range(1, K_MAX + 1)) / K_MAX

    @property
    def inconclusive(self) -> bool:
        return self.status == "inconclusive"

    @property
    def false_escalation(self) -> bool:
        """Inconclusive although the truth was among the evidence it gathered."""
        return self.inconclusive and self.truth_in_evidence

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.update({f"ac@{k}": self.ac(k) for k in (1, 3)}, avg5=self.avg5)
        return out


def ranked(result: InvestigationResult) -> list[tuple[str, str]]:
    return [(h.entity, h.fault_type) for h in result.hypotheses if h.status != "invalidated"]


def score_result(
    result: InvestigationResult,
    truth: Truth,
    check: CiteChecker,
    *,
    topology: str = "",
    wall_ms: int = 0,
    error: str | None = None,
) -> BundleScore:
    answers = set(truth.answers)
    order = ranked(result)
    if truth.no_fault:  # nothing is broken: the verdict itself is the answer, at rank 1
        hit = entity_hit = 1 if result.status == "no_fault" else None
    else:
        hit = next((i for i, pair in enumerate(order, 1) if pair in answers), None)
        entity_hit = next((i for i, (e, _) in enumerate(order, 1) if e in truth.entities), None)
    checks = [check(item.cite) for item in result.evidence.values()]
    resolved = [c for c in checks if c.ok]
    truth_seen = hit is not None or any(set(c.entities) & truth.entities for c in resolved)
    return BundleScore(
        bundle=result.bundle,
        topology=topology or truth.topology or result.bundle.split("-", 1)[0],
        fault_type=truth.fault_type,
        truth="no_fault" if truth.no_fault else f"{truth.entity}/{truth.fault_type}",
        status=result.status,
        top=[f"{e}/{f}" for e, f in order[:3]],
        hit_rank=hit,
        entity_rank=entity_hit,
        cites_total=len(checks),
        cites_resolved=len(resolved),
        bad_cites=[f"{c.cite}: {c.reason}" for c in checks if not c.ok][:10],
        claims_total=len(result.claims),
        claims_with_evidence=sum(1 for c in result.claims if c.evidence),
        dangling=result.dangling_evidence_ids(),
        truth_in_evidence=truth_seen,
        first_hypothesis_ms=result.timing.first_hypothesis_ms,
        total_ms=result.timing.total_ms,
        wall_ms=wall_ms,
        error=error,
        no_fault_truth=truth.no_fault,
    )


def _ratio(num: float, den: float) -> float | None:
    return round(num / den, 4) if den else None


def _median(values: Iterable[int | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return float(statistics.median(vals)) if vals else None


def no_fault_rates(scores: Sequence[BundleScore]) -> dict[str, Any]:
    """How often healthy bundles got `no_fault` (recall) and fault bundles wrongly did (false rate)."""
    healthy = [s for s in scores if s.no_fault_truth]
    faults = [s for s in scores if not s.no_fault_truth]
    return {
        "fault_bundles": len(faults),
        "no_fault_bundles": len(healthy),
        "no_fault_recall": _ratio(sum(s.status == "no_fault" for s in healthy), len(healthy)),
        "false_no_fault_rate": _ratio(sum(s.status == "no_fault" for s in faults), len(faults)),
    }


def summarize(scores: Sequence[BundleScore]) -> dict[str, Any]:
    """The headline numbers of a set of scored bundles.

    AC@k, entity@k and the status rates are over the fault bundles (a healthy one has no
    root cause to rank); citations and claims over all; `no_fault_rates` covers the healthy ones.
    """
    if not scores:
        return {"bundles": 0}
    everything = scores
    scores = [s for s in everything if not s.no_fault_truth] or list(everything)
    n = len(scores)
    cites_total = sum(s.cites_total for s in everything)
    claims_total = sum(s.claims_total for s in everything)
    out: dict[str, Any] = {"bundles": len(everything)} | no_fault_rates(everything)
    for k in range(1, K_MAX + 1):
        out[f"ac@{k}"] = round(sum(s.ac(k) for s in scores) / n, 4)
    out["avg@5"] = round(sum(s.avg5 for s in scores) / n, 4)
    out["entity@1"] = round(sum(s.entity_at(1) for s in scores) / n, 4)
    out["entity@3"] = round(sum(s.entity_at(3) for s in scores) / n, 4)
    out["citation_accuracy"] = _ratio(sum(s.cites_resolved for s in everything), cites_total)
    out["cites"] = cites_total
    out["claims_with_evidence"] = _ratio(sum(s.claims_with_evidence for s in everything), claims_total)
    out["claims"] = claims_total
    out["dangling_evidence_ids"] = sum(len(s.dangling) for s in everything)
    out["validated_rate"] = round(sum(s.status == "validated" for s in scores) / n, 4)
    out["inconclusive_rate"] = round(sum(s.inconclusive for s in scores) / n, 4)
    out["false_escalation_rate"] = round(sum(s.false_escalation for s in scores) / n, 4)
    out["failed_rate"] = round(sum(s.status == "failed" for s in scores) / n, 4)
    out["errors"] = sum(1 for s in everything if s.error)
    out["median_first_hypothesis_ms"] = _median(s.first_hypothesis_ms for s in scores)
    out["median_total_ms"] = _median(s.total_ms for s in scores)
    out["median_wall_ms"] = _median(s.wall_ms for s in scores)
    return out


def breakdown(scores: Sequence[BundleScore], key: Callable[[BundleScore], str]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[BundleScore]] = {}
    for s in scores:
        groups.setdefault(key(s), []).append(s)
    out = {}
    for name in sorted(groups):
        g = groups[name]
        n = len(g)
        out[name] = {
            "bundles": n,
            "ac@1": round(sum(s.ac(1) for s in g) / n, 4),
            "ac@3": round(sum(s.ac(3) for s in g) / n, 4),
            "avg@5": round(sum(s.avg5 for s in g) / n, 4),
            "entity@1": round(sum(s.entity_at(1) for s in g) / n, 4),
        }
    return out
