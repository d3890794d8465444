"""Per-edge dynamics learned from history: does a failure cross this edge, how fast, for how long.

For every edge `dependent -> dependency` that a past incident put to the test
(the dependency was affected), we count a trial, and a cascade when the
dependent was affected too; we keep the delay between the two entities' first
signs, the alert's duration, and which alert names fired on the dependent side.

"Affected" is what the record shows: an alert after the fault's onset, or a
symptom in the entity's own telemetry (`symptoms.py`: the first sustained
move of a metric, or of the calls into it in traces), plus the silent
entities on the way from the root to an affected one. Telemetry sees what
alerts miss: most services on a cascade's path have no rule of their own.

A rate alone cannot tell a cause from a coincidence: an entry point that
alerts in most incidents "cascades" from every edge into it. So each entity
also keeps its background: how often it was affected in incidents where none
of its dependencies was. A seen edge's probability is its causal power
(Cheng, 1997), `(rate - background) / (1 - background)`: the share of the
dependent's failures that the dependency adds, weighed by the trials the
background would not have explained anyway (`trials * (1 - background)`).

That power is shrunk toward a prior by two pseudo-observations: an edge never
seen is the prior, never 0 or 1, and a handful of observations move it
quickly. The prior is the relation's mean cascade probability (a `runs_on`
host fault hits its tenants less often than a hard `depends_on`) times the
edge's confidence, the chance that the edge is real at all. Observed cascades
are measured across the edge as it is, so they already carry that chance: the
confidence discounts the prior's share, not the evidence. The prediction
combines those per-edge strengths with a noisy-OR, which is the model causal
power assumes.

Timing (`timing.py`) keeps two delays apart: propagation per edge (first sign
to first sign) and detection per entity (own first sign to own first alert).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rootward.worldmodel.graph import WorldGraph
from rootward.worldmodel.history import IncidentRecord, ObservedSymptom
from rootward.worldmodel.priors import FIXED, FIXED_RELATION_PRIOR, Priors
from rootward.worldmodel.timing import PRIOR_STRENGTH, Window, quantile, shrunk_window

# Prior mean cascade probability per relation, before any history (priors.py).
RELATION_PRIOR: dict[str, float] = FIXED_RELATION_PRIOR
# Pseudo-trials of the fixed relation prior in the pooled relation prior.
POOLED_PRIOR_STRENGTH = 10.0
# Records key an entity's background counts under (entity, BACKGROUND_KEY), its detection delays
# under (entity, DETECTION_KEY), and the alerts a root shows per fault type under
# (fault_type, ROOT_ALERTS_KEY): none of them is an edge.
BACKGROUND_KEY = ""
DETECTION_KEY = "*detection*"
ROOT_ALERTS_KEY = "*root-alerts*"
DEFAULT_RECOVERY_S = 900.0
# Faults whose effect flows to what the target calls (load lands on dependencies), not to its
# dependents. Their incidents teach the root's own alerts but no edge statistics.
DOWNSTREAM_FAULTS = frozenset({"traffic_surge"})
# Alerts a dependent usually shows when something it needs fails, before any history.
DEFAULT_DEPENDENT_ALERTS: tuple[str, ...] = ("HighErrorRate", "HighLatencyP99")


@dataclass
class EdgeStats:
    trials: int = 0
    cascades: int = 0
    delays_s: list[float] = field(default_factory=list)
    recoveries_s: list[float] = field(default_factory=list)
    alert_names: Counter[str] = field(default_factory=Counter)
    relation: str = ""  # the edge's relation when it was learned, for the pooled relation prior


@dataclass
class Background:
    """Incidents where none of the entity's dependencies was affected, and how many it was affected in anyway."""

    unexposed: int = 0
    affected: int = 0


def causal_power(cascades: int, trials: int, background: Background) -> tuple[float, float]:
    """(power, weight): Cheng's causal power `(rate - b) / (1 - b)` and how many trials' worth of evidence it rests on.

    `rate` is the share of trials that cascaded, `b` the dependent's background
    (affected with no dependency affected; one pseudo-observation of "not
    affected" keeps a couple of incidents from making it 1). Only a trial the
    background would not have explained anyway says something about the edge,
    so the evidence is `trials * (1 - b)`: an entity affected in every
    incident, whatever failed, teaches nothing about its edges however often
    it is seen, and they keep their prior. A small sample is not pushed toward
    0 either: the shrinkage toward the prior is where uncertainty goes.
    """
    if trials <= 0:
        return 0.0, 0.0
    rate = cascades / trials
    base = background.affected / (background.unexposed + 1)
    if base >= 1.0:
        return 0.0, 0.0
    return max(0.0, (rate - base) / (1.0 - base)), trials * (1.0 - base)


@dataclass(frozen=True)
class EdgeDynamics:
    """What prediction needs of one edge, already smoothed; `probability` includes the edge's confidence."""

    probability: float
    delay_min_s: float  # propagation: the dependency's first sign to the dependent's
    delay_p50_s: float
    delay_p95_s: float
    recovery_s: float
    alerts: tuple[tuple[str, float], ...]  # (alert name, share of cascades that showed it)
    trials: int = 0

    @property
    def propagation(self) -> Window:
        return Window(self.delay_min_s, self.delay_p50_s, self.delay_p95_s)


def _prior_dynamics(
    relation: str, confidence: float = 1.0, mean: float | None = None, priors: Priors = FIXED
) -> EdgeDynamics:
    share = 1.0 / len(DEFAULT_DEPENDENT_ALERTS)
    window = priors.propagation
    return EdgeDynamics(
        probability=(priors.relation_mean(relation) if mean is None else mean) * confidence,
        delay_min_s=window.min_s,
        delay_p50_s=window.p50_s,
        delay_p95_s=window.p95_s,
        recovery_s=DEFAULT_RECOVERY_S,
        alerts=tuple((name, share) for name in DEFAULT_DEPENDENT_ALERTS),
    )


class Dynamics:
    """Learned statistics keyed by edge (dependent, dependency); falls back to the relation prior.

    `priors` are what it leans on where it has seen little: the fixed ones, or
    those pooled from other estates' history (`pooled_priors`).
    """

    def __init__(self, priors: Priors = FIXED) -> None:
        self.priors = priors
        self.stats: dict[tuple[str, str], EdgeStats] = {}
        self.background: dict[str, Background] = {}
        self.detection: dict[str, list[float]] = {}  # per entity: own first sign to first alert
        self._cache: dict[tuple[str, str, str, float], EdgeDynamics] = {}
        self._detect_cache: dict[str, Window] = {}
        self._relation_cache: dict[str, float] = {}
        self.fault_alerts: dict[str, Counter[str]] = {}  # alerts on the root itself, by fault type
        self.incidents = 0

    def edge(self, dependent: str, dependency: str, relation: str, confidence: float = 1.0) -> EdgeDynamics:
        """The edge's smoothed dynamics; `confidence` (that the edge is real) discounts the prior's share."""
        key = (dependent, dependency, relation, confidence)
        cached = self._cache.get(key)
        if cached is None:
            stats = self.stats.get((dependent, dependency))
            prior = self.relation_prior(relation)
            if stats is None or stats.trials == 0:
                cached = _prior_dynamics(relation, confidence, prior, self.priors)
            else:
                background = self.background.get(dependent, Background())
                cached = self._smooth(stats, prior, confidence, background, self.priors.propagation)
            self._cache[key] = cached
        return cached

    def relation_prior(self, relation: str) -> float:
        """Mean cascade probability of the relation's edges: their pooled causal power, shrunk to the fixed prior.

        What every edge of a relation has shown is the best guess for one of them
        seen rarely or never (empirical Bayes): an estate whose calls fail over
        cleanly gets a lower prior than one where every dependency is hard.
        """
        cached = self._relation_cache.get(relation)
        if cached is None:
            fixed = self.priors.relation_mean(relation)
            weighted, trials = 0.0, 0.0
            for (dependent, _), stats in self.stats.items():
                if stats.relation == relation and stats.trials:
                    background = self.background.get(dependent, Background())
                    power, weight = causal_power(stats.cascades, stats.trials, background)
                    weighted += weight * power
                    trials += weight
            cached = (weighted + POOLED_PRIOR_STRENGTH * fixed) / (trials + POOLED_PRIOR_STRENGTH)
            self._relation_cache[relation] = cached
        return cached

    def detection_window(self, entity: str) -> Window:
        """From the entity's first sign to its first alert: its own samples, shrunk toward everyone's."""
        cached = self._detect_cache.get(entity)
        if cached is None:
            cached = shrunk_window(self.detection.get(entity, []), self.pooled_detection())
            self._detect_cache[entity] = cached
        return cached

    def pooled_detection(self) -> Window:
        """Every entity's detection delays together, shrunk toward the prior."""
        cached = self._detect_cache.get(DETECTION_KEY)
        if cached is None:
            everyone = [x for samples in self.detection.values() for x in samples]
            cached = shrunk_window(everyone, self.priors.detection)
            self._detect_cache[DETECTION_KEY] = cached
        return cached

    def pooled_priors(self) -> Priors:
        """What this history says about any edge: per-relation means and pooled delay windows, no names."""
        relations = {r for r in (*self.priors.relation, *(s.relation for s in self.stats.values())) if r}
        delays = [x for s in self.stats.values() for x in s.delays_s]
        return Priors(
            relation={r: self.relation_prior(r) for r in sorted(relations)},
            detection=self.pooled_detection(),
            propagation=shrunk_window(delays, self.priors.propagation),
        )

    @staticmethod
    def _smooth(
        stats: EdgeStats, mean: float, confidence: float, background: Background, propagation: Window
    ) -> EdgeDynamics:
        # The edge's causal power, shrunk toward the (confidence-discounted) relation prior by PRIOR_STRENGTH,
        # weighed by the evidence behind it.
        prior = mean * confidence
        power, weight = causal_power(stats.cascades, stats.trials, background)
        probability = (power * weight + prior * PRIOR_STRENGTH) / (weight + PRIOR_STRENGTH)
        if stats.alert_names and stats.cascades:
            alerts = tuple((name, count / stats.cascades) for name, count in sorted(stats.alert_names.items()))
        else:
            alerts = _prior_dynamics("").alerts
        window = shrunk_window(stats.delays_s, propagation)
        return EdgeDynamics(
            probability=probability,
            delay_min_s=window.min_s,
            delay_p50_s=window.p50_s,
            delay_p95_s=window.p95_s,
            recovery_s=quantile(stats.recoveries_s, 0.5) if stats.recoveries_s else DEFAULT_RECOVERY_S,
            alerts=alerts,
            trials=stats.trials,
        )

    def root_alerts(self, fault_type: str) -> tuple[tuple[str, float], ...]:
        counts = self.fault_alerts.get(fault_type)
        if not counts:
            return ()
        total = sum(counts.values())
        return tuple((name, n / total) for name, n in sorted(counts.items()))

    # --- records (what the store persists) -------------------------------
    def to_records(self) -> dict[tuple[str, str], dict[str, Any]]:
        records: dict[tuple[str, str], dict[str, Any]] = {
            key: {
                "trials": s.trials,
                "cascades": s.cascades,
                "delays_s": s.delays_s,
                "recoveries_s": s.recoveries_s,
                "alert_names": dict(s.alert_names),
                "relation": s.relation,
            }
            for key, s in self.stats.items()
        }
        for entity, b in self.background.items():
            records[(entity, BACKGROUND_KEY)] = {"unexposed": b.unexposed, "affected": b.affected}
        for entity, samples in self.detection.items():
            records[(entity, DETECTION_KEY)] = {"delays_s": samples}
        for fault_type, counts in self.fault_alerts.items():
            records[(fault_type, ROOT_ALERTS_KEY)] = {"alert_names": dict(counts)}
        return records

    @classmethod
    def from_records(cls, records: dict[tuple[str, str], dict[str, Any]]) -> Dynamics:
        dynamics = cls()
        for key, data in records.items():
            if key[1] == BACKGROUND_KEY:
                dynamics.background[key[0]] = Background(int(data.get("unexposed", 0)), int(data.get("affected", 0)))
                continue
            if key[1] == DETECTION_KEY:
                dynamics.detection[key[0]] = [float(x) for x in data.get("delays_s", [])]
                continue
            if key[1] == ROOT_ALERTS_KEY:
                names = data.get("alert_names") or {}
                dynamics.fault_alerts[key[0]] = Counter({str(k): int(v) for k, v in names.items()})
                continue
            dynamics.stats[key] = EdgeStats(
                trials=int(data.get("trials", 0)),
                cascades=int(data.get("cascades", 0)),
                delays_s=[float(x) for x in data.get("delays_s", [])],
                recoveries_s=[float(x) for x in data.get("recoveries_s", [])],
                alert_names=Counter({str(k): int(v) for k, v in (data.get("alert_names") or {}).items()}),
                relation=str(data.get("relation") or ""),
            )
        return dynamics

    # --- learning -------------------------------------------------------
    def learn(self, graph: WorldGraph, records: Iterable[IncidentRecord]) -> int:
        """Fold incidents into the statistics; returns how many edge trials were added."""
        added = 0
        for record in records:
            added += self._learn_one(graph, record)
            self.incidents += 1
        self._cache.clear()
        self._detect_cache.clear()
        self._relation_cache.clear()
        return added

    def _learn_one(self, graph: WorldGraph, record: IncidentRecord) -> int:
        if not graph.has_entity(record.root):
            return 0
        seen_alerts = _alerts_after_onset(record)
        if record.root in seen_alerts.names:
            self.fault_alerts.setdefault(record.fault_type, Counter()).update(seen_alerts.names[record.root])
        signs = _first_signs(record, seen_alerts.first)
        self._learn_detection(record, seen_alerts.first)
        if record.fault_type in DOWNSTREAM_FAULTS:
            return 0
        reach = _dependents_closure(graph, record.root)
        # Without a known onset the detector's baseline is a guess (it may hold the fault itself), so a
        # watched entity's silence is no evidence that it was fine.
        watched = record.watched if record.fault_start is not None else frozenset()
        affected = _affected(graph, record.root, reach, set(signs), watched)
        self._count_background(graph, record.root, affected | set(signs))
        # The cascade's clock starts when the fault does; the root's own first sign is only a fallback.
        when: dict[str, datetime | None] = {record.root: record.fault_start or signs.get(record.root)}
        frontier = [record.root]
        seen = {record.root}
        added = 0
        while frontier:
            nxt: list[str] = []
            for dependency in frontier:
                for dependent in graph.dependents(dependency):
                    stats = self.stats.setdefault((dependent, dependency), EdgeStats())
                    view = graph.edge(dependent, dependency)
                    stats.relation = view.relation if view is not None else stats.relation
                    stats.trials += 1
                    added += 1
                    if dependent not in affected:
                        continue
                    stats.cascades += 1
                    stats.alert_names.update(seen_alerts.names.get(dependent, ()))
                    stats.recoveries_s.extend(seen_alerts.durations.get(dependent, ()))
                    t_dep = when.get(dependency)
                    t_own = signs.get(dependent)
                    if t_dep is not None and t_own is not None:
                        stats.delays_s.append(max(0.0, (t_own - t_dep).total_seconds()))
                    if dependent not in seen:
                        seen.add(dependent)
                        when[dependent] = t_own if t_own is not None else t_dep
                        nxt.append(dependent)
            frontier = sorted(nxt)
        return added

    def _learn_detection(self, record: IncidentRecord, first_alert: dict[str, datetime]) -> None:
        """Alert minus own first symptom, for every entity that had both (never the root: its clock is the fault)."""
        for symptom in _symptoms_after_onset(record):
            alerted = first_alert.get(symptom.entity)
            if alerted is None or symptom.entity == record.root:
                continue
            self.detection.setdefault(symptom.entity, []).append(
                max(0.0, (alerted - symptom.starts_at).total_seconds())
            )

    def _count_background(self, graph: WorldGraph, root: str, affected: set[str]) -> None:
        """Every entity none of whose dependencies was affected: was it affected anyway (noise, another cause)?"""
        for entity in graph.entities():
            if entity == root or any(d in affected for d in graph.dependencies(entity)):
                continue
            b = self.background.setdefault(entity, Background())
            b.unexposed += 1
            b.affected += entity in affected


@dataclass
class _SeenAlerts:
    first: dict[str, datetime]
    names: dict[str, set[str]]
    durations: dict[str, list[float]]


def _alerts_after_onset(record: IncidentRecord) -> _SeenAlerts:
    """Per entity: first alert, alert names and durations, leaving out alerts that began before the fault."""
    out = _SeenAlerts({}, {}, {})
    for alert in record.alerts:
        if record.fault_start is not None and alert.starts_at < record.fault_start:
            continue  # it began before the fault, so the fault did not cause it
        if alert.entity not in out.first or alert.starts_at < out.first[alert.entity]:
            out.first[alert.entity] = alert.starts_at
        out.names.setdefault(alert.entity, set()).add(alert.name)
        if alert.ends_at is not None and alert.ends_at > alert.starts_at:
            out.durations.setdefault(alert.entity, []).append((alert.ends_at - alert.starts_at).total_seconds())
    return out


def _symptoms_after_onset(record: IncidentRecord) -> list[ObservedSymptom]:
    return [s for s in record.symptoms if record.fault_start is None or s.starts_at >= record.fault_start]


def _first_signs(record: IncidentRecord, first_alert: dict[str, datetime]) -> dict[str, datetime]:
    """Per entity, its earliest sign of the incident: a symptom in its telemetry or its first alert."""
    signs = dict(first_alert)
    for symptom in _symptoms_after_onset(record):
        known = signs.get(symptom.entity)
        if known is None or symptom.starts_at < known:
            signs[symptom.entity] = symptom.starts_at
    return signs


def _dependents_closure(graph: WorldGraph, root: str) -> set[str]:
    out: set[str] = set()
    stack = [root]
    while stack:
        for dependent in graph.dependents(stack.pop()):
            if dependent not in out and dependent != root:
                out.add(dependent)
                stack.append(dependent)
    return out


def _affected(graph: WorldGraph, root: str, reach: set[str], signs: set[str], watched: frozenset[str]) -> set[str]:
    """Root, the entities with a sign it can reach, and the silent entities on the way to them.

    A silent entity counts as on the way only when nothing watched it: one whose
    telemetry the record holds and which showed no symptom was seen to be fine,
    so the cascade reached the entity above it by another path.
    """
    hit = signs & reach
    affected = {root} | hit
    # Walk back from each entity with a sign along its dependencies while staying inside `reach`.
    stack = list(hit)
    while stack:
        node = stack.pop()
        for dependency in graph.dependencies(node):
            if dependency in reach and dependency not in affected and dependency not in watched:
                affected.add(dependency)
                stack.append(dependency)
    return affected
