"""The predictive risk report: every check over every series, ranked by how soon and how far it would hurt.

An entry's score is its urgency times its reach:

- urgency `1 / (1 + t / 6 h)` for a crossing `t` away (1 when it is already
  crossed): a disk full in 6 hours (0.5) is ten times as urgent as one full
  in 6 days (0.04), whatever else is true of them;
- reach `1 + min(1, blast / 5)`, where `blast` is the summed probability of
  the entities the world model predicts the fault would reach: at most a
  doubling, so a wide blast radius orders entries that are about as urgent
  and never lifts a distant risk over an imminent one.

Entries further away than the horizon are left out (they are no news), and
so is every series that is flat, falling or levelling off.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import WorldGraph
from rootward.worldmodel.predict import UnknownTarget, predict
from rootward.worldmodel.risk.checks import (
    FILL_KINDS,
    Assessment,
    RiskSeries,
    burn,
    certificate,
    fill,
    pair_burn_series,
    restarts,
)

URGENCY_SCALE_S = 6 * 3600.0
BLAST_SCALE = 5.0


@dataclass(frozen=True)
class RiskOptions:
    horizon_s: float = 7 * 86400.0
    certificate_horizon_s: float = 30 * 86400.0
    slo: float = 0.999
    slo_period_s: float = 30 * 86400.0
    min_restarts: int = 3


@dataclass(frozen=True)
class BlastEntity:
    name: str
    probability: float


@dataclass(frozen=True)
class RiskEntry:
    assessment: Assessment
    crosses_at: datetime
    score: float
    blast_radius: tuple[BlastEntity, ...] = ()
    in_world_model: bool = False

    def to_json(self) -> dict[str, Any]:
        a = self.assessment
        return {
            "entity": a.entity,
            "kind": a.kind,
            "severity": a.severity or None,
            "score": round(self.score, 4),
            "crosses_at": self.crosses_at.isoformat(),
            "crosses_in_s": round(a.crosses_in_s),
            "threshold": a.threshold,
            "current": a.current,
            "rate_per_hour": a.rate_per_hour,
            "summary": a.summary,
            "series": list(a.cites),
            "fault_type": a.fault_type,
            "in_world_model": self.in_world_model,
            "blast_radius": [{"entity": b.name, "probability": round(b.probability, 3)} for b in self.blast_radius],
        }


@dataclass(frozen=True)
class RiskReport:
    generated_at: datetime
    entries: tuple[RiskEntry, ...]
    series_read: int
    gaps: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "generated_at": self.generated_at.isoformat(),
            "series_read": self.series_read,
            "gaps": list(self.gaps),
            "entries": [e.to_json() for e in self.entries],
        }


def assess(series: Sequence[RiskSeries], now: datetime, options: RiskOptions) -> list[Assessment]:
    """Every check on every series it applies to, keeping those within their horizon."""
    found: list[Assessment] = []
    for s in series:
        if s.check in FILL_KINDS:
            result = fill(s, now)
        elif s.check == "certificate":
            result = certificate(s, now)
        elif s.check == "restarts":
            result = restarts(s, min_restarts=options.min_restarts)
        else:
            continue
        if result is not None:
            found.append(result)
    for errors, requests in pair_burn_series(series):
        result = burn(errors, requests, slo=options.slo, period_s=options.slo_period_s, now=now)
        if result is not None:
            found.append(result)
    return [a for a in found if a.crosses_in_s <= _horizon(a, options)]


def _horizon(a: Assessment, options: RiskOptions) -> float:
    if a.kind == "certificate_expiry":
        return options.certificate_horizon_s
    if a.kind == "error_budget_burn":
        return float("inf")  # the burn alert has fired; how long the budget lasts is its news
    return options.horizon_s


def blast_radius(
    graph: WorldGraph | None, dynamics: Dynamics | None, a: Assessment
) -> tuple[tuple[BlastEntity, ...], bool]:
    """The world model's prediction of the fault this risk would become: (entities it reaches, known entity)."""
    if graph is None or not graph.has_entity(a.entity):
        return (), False
    try:
        prediction = predict(graph, a.entity, fault_type=a.fault_type, dynamics=dynamics)
    except UnknownTarget:
        return (), False
    reached = tuple(BlastEntity(e.name, e.probability) for e in prediction.entities if e.name != a.entity)
    return reached, True


def score(a: Assessment, blast: Sequence[BlastEntity]) -> float:
    urgency = 1.0 / (1.0 + a.crosses_in_s / URGENCY_SCALE_S)
    reach = 1.0 + min(1.0, sum(b.probability for b in blast) / BLAST_SCALE)
    return urgency * reach


def build_report(
    series: Sequence[RiskSeries],
    now: datetime,
    *,
    options: RiskOptions | None = None,
    graph: WorldGraph | None = None,
    dynamics: Dynamics | None = None,
    gaps: Sequence[str] = (),
) -> RiskReport:
    options = options or RiskOptions()
    entries = []
    for a in assess(series, now, options):
        blast, known = blast_radius(graph, dynamics, a)
        entries.append(RiskEntry(a, now + timedelta(seconds=a.crosses_in_s), score(a, blast), blast, known))
    entries.sort(key=lambda e: (-e.score, e.assessment.crosses_in_s, e.assessment.entity, e.assessment.kind))
    return RiskReport(now, tuple(entries), len(series), tuple(gaps))


def digest_lines(report: RiskReport, top: int) -> list[str]:
    """One line per top entry, for the chat digest: what, when, and how far it would reach."""
    lines = []
    for entry in report.entries[:top]:
        reach = ", ".join(b.name for b in entry.blast_radius[:4])
        more = f" (+{len(entry.blast_radius) - 4})" if len(entry.blast_radius) > 4 else ""
        lines.append(entry.assessment.summary + (f"; would reach {reach}{more}" if reach else ""))
    return lines
