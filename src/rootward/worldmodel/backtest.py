"""Backtest with a negative control: does the graph's wiring predict real cascades?

For each bundle with ground truth, predict the cascade of the true root cause
and measure how much of what actually alerted it covers:

- `hit_coverage`: share of alerting entities (other than the root) inside the
  predicted blast radius;
- `coverage`: the probability-weighted version, the mean predicted probability
  of those entities (an entity predicted at 0.9 counts more than one at 0.06).

An alert counts as covered only the way the mechanical verdict would accept
it: on a predicted entity, and on time (its first alert after the fault's
onset falls inside that entity's predicted delay window, with the verdict's
tolerance). Alerts that started before the onset cannot be consequences of the
fault and are left out of what was observed. Bundles without a recorded onset
are scored on entities alone (`timed: false` in their results).

Then the same prediction runs on degree-preserving shuffles of the same graph
(Maslov-Sneppen directed double-edge swaps; the seed fixes the result) and
`control_ratio = control coverage / real coverage`. A model that only knew the
graph's shape, not its wiring, would score a ratio near 1; the target is ≤ 0.5.
The structural prior is used on both sides (no learned dynamics), so the
control differs from the real run only in the wiring.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from statistics import mean
from typing import Any

from rootward.domain.topology import Topology
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import EdgeClaim, WorldGraph
from rootward.worldmodel.history import IncidentRecord, ObservedAlert, ObservedSymptom
from rootward.worldmodel.predict import predict
from rootward.worldmodel.symptoms import earliest, metric_symptoms, trace_symptoms
from rootward.worldmodel.verdict import on_time

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Shuffled graphs per topology: enough that the control's mean does not hang on one lucky rewiring.
SHUFFLES = 20


@dataclass(frozen=True)
class BacktestCase:
    name: str
    topology: Topology
    root: str
    fault_type: str
    alerted: frozenset[str]  # entities with at least one alert (after the onset, when it is known)
    alerts: tuple[ObservedAlert, ...] = ()  # what the learner sees of the other folds
    onset: datetime | None = None  # when the fault began, from the truth record
    symptoms: tuple[ObservedSymptom, ...] = ()  # first signs in the bundle's metrics and traces
    watched: frozenset[str] = frozenset()  # entities the bundle has telemetry of

    @property
    def record(self) -> IncidentRecord:
        return IncidentRecord(
            self.root,
            self.fault_type,
            self.alerts,
            fault_start=self.onset,
            source=self.name,
            symptoms=self.symptoms,
            watched=self.watched,
        )

    def arrivals(self) -> dict[str, float]:
        """Seconds from the onset to each alerted entity's first alert after it (empty without an onset)."""
        if self.onset is None:
            return {}
        out: dict[str, float] = {}
        for alert in self.alerts:
            offset = (alert.starts_at - self.onset).total_seconds()
            if offset >= 0 and alert.entity in self.alerted:
                out[alert.entity] = min(offset, out.get(alert.entity, offset))
        return out


@dataclass(frozen=True)
class CaseResult:
    name: str
    root: str
    observed: int
    hit_coverage: float
    coverage: float
    control_hit_coverage: float | None
    control_coverage: float | None
    missed: tuple[str, ...] = ()
    late: tuple[str, ...] = ()  # predicted entities whose alert fell outside the predicted delay window
    timed: bool = False


@dataclass(frozen=True)
class BacktestReport:
    cases: tuple[CaseResult, ...]
    skipped: tuple[str, ...] = field(default_factory=tuple)
    seed: int = 0
    shuffles: int = SHUFFLES
    learned: bool = True

    def _mean(self, attr: str) -> float:
        values = [getattr(c, attr) for c in self.cases if getattr(c, attr) is not None]
        return mean(values) if values else 0.0

    def to_json(self) -> dict[str, Any]:
        coverage = self._mean("coverage")
        control = self._mean("control_coverage")
        hit, control_hit = self._mean("hit_coverage"), self._mean("control_hit_coverage")
        return {
            "cases": len(self.cases),
            "timed_cases": sum(1 for c in self.cases if c.timed),
            "skipped": list(self.skipped),
            "seed": self.seed,
            "shuffles": self.shuffles,
            "learned_dynamics": self.learned,
            "coverage": round(coverage, 4),
            "control_coverage": round(control, 4),
            "control_ratio": round(control / coverage, 4) if coverage else None,
            "hit_coverage": round(hit, 4),
            "control_hit_coverage": round(control_hit, 4),
            "hit_control_ratio": round(control_hit / hit, 4) if hit else None,
            "target_control_ratio": 0.5,
            "per_case": [
                {
                    "name": c.name,
                    "root": c.root,
                    "observed": c.observed,
                    "coverage": round(c.coverage, 4),
                    "hit_coverage": round(c.hit_coverage, 4),
                    "control_coverage": None if c.control_coverage is None else round(c.control_coverage, 4),
                    "missed": list(c.missed),
                    "mistimed": list(c.late),
                    "timed": c.timed,
                }
                for c in self.cases
            ],
        }


def directed_double_edge_swap(edges: list[tuple[str, str]], nswap: int, rng: random.Random) -> list[tuple[str, str]]:
    """Maslov-Sneppen rewiring: (a->b, c->d) becomes (a->d, c->b), never a self-loop or a duplicate.

    The directed equivalent of networkx `double_edge_swap`: every entity keeps its in- and
    out-degree, while edges move between any two parts of the graph. (networkx's
    `directed_edge_swap` only reorders three-edge paths, so on tree-like estates it never
    moves an edge out of its own call chain, which makes a weak control.)
    """
    current = list(edges)
    present = set(current)
    if len(current) < 2:
        return current
    done, tries = 0, 0
    while done < nswap and tries < 100 * nswap:
        tries += 1
        i, j = rng.randrange(len(current)), rng.randrange(len(current))
        (a, b), (c, d) = current[i], current[j]
        if i == j or a == d or c == b or (a, d) in present or (c, b) in present:
            continue
        present -= {(a, b), (c, d)}
        present |= {(a, d), (c, b)}
        current[i], current[j] = (a, d), (c, b)
        done += 1
    return current


def shuffled(graph: WorldGraph, seed: int, swaps_per_edge: int = 10) -> WorldGraph:
    """The same entities and in/out degrees with rewired edges; the same seed gives the same graph."""
    rng = random.Random(seed)
    edges = sorted(graph.g.edges)
    rewired = sorted(directed_double_edge_swap(edges, swaps_per_edge * len(edges), rng))
    # Relations and confidences keep their multiset, dealt out in a seeded order.
    attrs = sorted((d["relation"], d["confidence"]) for _, _, d in graph.g.edges(data=True))
    rng.shuffle(attrs)
    out = WorldGraph()
    for name in sorted(graph.g.nodes):
        out.add_entity(name, graph.kind(name), graph.attributes(name))
    for (source, target), (relation, confidence) in zip(rewired, attrs, strict=True):
        out.add_claim(source, target, EdgeClaim("topology_file", relation, confidence, EPOCH))
    return out


@dataclass(frozen=True)
class _Scored:
    hit: float
    weighted: float
    missed: tuple[str, ...]
    late: tuple[str, ...]


def _coverage(graph: WorldGraph, case: BacktestCase, dynamics: Dynamics | None, min_probability: float) -> _Scored:
    prediction = predict(
        graph, case.root, fault_type=case.fault_type, dynamics=dynamics, min_probability=min_probability
    )
    predicted = {e.name: e for e in prediction.entities}
    arrivals = case.arrivals()
    observed = sorted(case.alerted - {case.root})
    missed = tuple(name for name in observed if name not in predicted)
    late = tuple(
        name
        for name in observed
        if name in predicted and name in arrivals and not on_time(predicted[name], arrivals[name])
    )
    covered = [predicted[name] for name in observed if name in predicted and name not in late]
    return _Scored(
        hit=len(covered) / len(observed),
        weighted=sum(e.probability for e in covered) / len(observed),
        missed=missed,
        late=late,
    )


def _wiring_key(topology: Topology) -> tuple[tuple[str, str, str], ...]:
    return tuple(sorted(topology.edges()))


def _fold_dynamics(graph: WorldGraph, group: list[tuple[int, BacktestCase]], folds: int) -> dict[int, Dynamics]:
    """Per case index: dynamics learned on `graph` from the other folds of its topology group."""
    out: dict[int, Dynamics] = {}
    for fold in range(folds):
        members = [i for i, _ in group if i % folds == fold]
        if not members:
            continue
        dynamics = Dynamics()
        dynamics.learn(graph, [c.record for i, c in group if i % folds != fold])
        for i in members:
            out[i] = dynamics
    return out


def run_backtest(
    cases: Iterable[BacktestCase],
    *,
    seed: int = 0,
    shuffles: int = SHUFFLES,
    min_probability: float = 0.05,
    folds: int = 5,
    learn: bool = True,
) -> BacktestReport:
    """Real wiring against `shuffles` rewired controls; with `learn`, each side learns its own
    dynamics from the other folds of the same topology (k-fold, so no incident predicts itself)."""
    listed = list(enumerate(cases))
    skipped = [c.name for _, c in listed if c.root not in c.topology.entities or not (c.alerted - {c.root})]
    usable = [(i, c) for i, c in listed if c.name not in skipped]
    groups: dict[tuple[tuple[str, str, str], ...], list[tuple[int, BacktestCase]]] = {}
    for i, c in usable:
        groups.setdefault(_wiring_key(c.topology), []).append((i, c))
    results: dict[int, CaseResult] = {}
    for number, (_, group) in enumerate(sorted(groups.items())):
        real = WorldGraph.from_topology(group[0][1].topology)
        controls = [shuffled(real, seed=seed * 1_000_003 + number * 101 + r) for r in range(shuffles)]
        real_dyn = _fold_dynamics(real, group, folds) if learn else {}
        control_dyn = [_fold_dynamics(g, group, folds) if learn else {} for g in controls]
        for i, case in group:
            scored = _coverage(real, case, real_dyn.get(i), min_probability)
            control = [
                _coverage(g, case, dyn.get(i), min_probability) for g, dyn in zip(controls, control_dyn, strict=True)
            ]
            results[i] = CaseResult(
                name=case.name,
                root=case.root,
                observed=len(case.alerted - {case.root}),
                hit_coverage=scored.hit,
                coverage=scored.weighted,
                control_hit_coverage=mean(c.hit for c in control) if control else None,
                control_coverage=mean(c.weighted for c in control) if control else None,
                missed=scored.missed,
                late=scored.late,
                timed=case.onset is not None,
            )
    return BacktestReport(tuple(results[i] for i in sorted(results)), tuple(skipped), seed, shuffles, learn)


TruthReader = Callable[[Path], Any]


def onset_of(truth: Any) -> datetime | None:
    """The truth record's `fault_onset`, if it has a readable one."""
    raw = truth.get("fault_onset") if isinstance(truth, dict) else getattr(truth, "extra", {}).get("fault_onset")
    if not isinstance(raw, str):
        return None
    try:
        parsed = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def root_of(truth: Any) -> tuple[str, str]:
    """(entity, fault_type) of a truth record: `eval.truth.Truth`, or the raw truth.json dict."""
    if isinstance(truth, dict):
        root = truth["root_cause"]
        return str(root["entity"]), str(root["fault_type"])
    return str(truth.entity), str(truth.fault_type)


def load_cases(
    bundle_dirs: Sequence[Path], read_truth: TruthReader, load_bundle: Callable[[Path], Any]
) -> tuple[list[BacktestCase], list[str]]:
    """Bundles with truth and a topology become cases; the others are named as skipped.

    The caller hands in the truth reader (`rootward.eval.truth.read_truth`) and the bundle
    loader (`rootward.bundle.load.load_bundle`): the world model imports neither layer.
    """
    cases: list[BacktestCase] = []
    skipped: list[str] = []
    for path in bundle_dirs:
        try:
            truth = read_truth(path)
        except FileNotFoundError:
            skipped.append(f"{path.name}: no truth")
            continue
        bundle = load_bundle(path)
        if bundle.topology is None:
            skipped.append(f"{path.name}: no topology")
            continue
        entity, fault_type = root_of(truth)
        onset = onset_of(truth)
        alerts = tuple(ObservedAlert(a.service, a.name, a.starts_at, a.ends_at) for a in bundle.alerts)
        cases.append(
            BacktestCase(
                name=bundle.id,
                topology=bundle.topology,
                root=entity,
                fault_type=fault_type,
                alerted=frozenset(a.entity for a in alerts if onset is None or a.starts_at >= onset),
                alerts=alerts,
                onset=onset,
                symptoms=bundle_symptoms(bundle, onset, alerts),
                watched=watched_entities(bundle),
            )
        )
    return cases, skipped


SYMPTOM_LOOKBACK = timedelta(minutes=10)


def bundle_symptoms(
    bundle: Any, onset: datetime | None, alerts: Sequence[ObservedAlert]
) -> tuple[ObservedSymptom, ...]:
    """First signs per entity in the bundle's metrics and traces, from the onset (or a while before the first alert)."""
    since = onset or (min(a.starts_at for a in alerts) - SYMPTOM_LOOKBACK if alerts else None)
    if since is None:
        return ()
    return earliest(metric_symptoms(bundle.metrics or (), since), trace_symptoms(bundle.spans or (), since))


def watched_entities(bundle: Any) -> frozenset[str]:
    """Entities with telemetry in the bundle: a metric series, or spans of their own."""
    return frozenset(s.service for s in bundle.metrics or ()) | frozenset(s.service for s in bundle.spans or ())


def bundle_dirs_under(root: Path) -> list[Path]:
    if (root / "incident.yaml").is_file():
        return [root]
    return sorted(p.parent for p in root.glob("*/incident.yaml"))
