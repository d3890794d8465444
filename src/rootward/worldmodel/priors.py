"""Priors for what one estate has not seen yet: the fixed ones, or what other estates' history pooled.

A new estate, or an edge seen twice, leans on its priors: the mean cascade
probability of each relation, the typical detection delay, the typical
propagation delay. Before any history those are the fixed values of
`dynamics.RELATION_PRIOR` and `timing.py`. Once other estates have history,
what their edges showed on average is a better guess than a constant
(hierarchical, empirical Bayes), and it carries no entity name across: only
per-relation means and pooled delay windows travel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rootward.worldmodel.timing import DETECTION_PRIOR, PROPAGATION_PRIOR, Window

FIXED_RELATION_PRIOR: dict[str, float] = {
    "depends_on": 0.6,
    "runs_on": 0.5,
    "routes_via": 0.6,
    "member_of": 0.3,
}


@dataclass(frozen=True)
class Priors:
    relation: dict[str, float] = field(default_factory=lambda: dict(FIXED_RELATION_PRIOR))
    detection: Window = DETECTION_PRIOR
    propagation: Window = PROPAGATION_PRIOR

    def relation_mean(self, relation: str) -> float:
        return self.relation.get(relation, 0.5)


FIXED = Priors()
