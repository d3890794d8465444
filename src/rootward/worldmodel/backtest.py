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
With `learn`, each side learns its own dynamics from the other folds of the
same topology (k-fold: no incident predicts itself), so the control differs
from the real run only in the wiring, never in what it was allowed to learn.

Loading cases from bundles is `backtest_cases.py`; the report's figures are
`backtest_report.py`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from statistics import mean

from rootward.domain.topology import Topology
from rootward.worldmodel.backtest_report import SHUFFLES, BacktestReport, CaseResult
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import EdgeClaim, WorldGraph
from rootward.worldmodel.history import IncidentRecord, ObservedAlert, ObservedSymptom
from rootward.worldmodel.predict import predict
from rootward.worldmodel.priors import FIXED, Priors
from rootward.worldmodel.verdict import on_time

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


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
    topology_name: str = ""  # which estate (the truth's `topology` label), for per-topology figures

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
    timed_predicted: int = 0
    timing_errors_s: tuple[float, ...] = ()


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
    timed = [name for name in observed if name in predicted and name in arrivals]
    return _Scored(
        hit=len(covered) / len(observed),
        weighted=sum(e.probability for e in covered) / len(observed),
        missed=missed,
        late=late,
        timed_predicted=len(timed),
        timing_errors_s=tuple(abs(arrivals[name] - predicted[name].delay_p50_s) for name in timed),
    )


def _wiring_key(topology: Topology) -> tuple[tuple[str, str, str], ...]:
    return tuple(sorted(topology.edges()))


def _fold_dynamics(
    graph: WorldGraph, group: list[tuple[int, BacktestCase]], folds: int, priors: Priors = FIXED
) -> dict[int, Dynamics]:
    """Per case index: dynamics learned on `graph` from the other folds of its topology group."""
    out: dict[int, Dynamics] = {}
    for fold in range(folds):
        members = [i for i, _ in group if i % folds == fold]
        if not members:
            continue
        dynamics = Dynamics(priors)
        dynamics.learn(graph, [c.record for i, c in group if i % folds != fold])
        for i in members:
            out[i] = dynamics
    return out


def pooled(parts: Sequence[Dynamics]) -> Priors:
    """The priors other estates' histories give together (their entity names kept apart, never carried over)."""
    if not parts:
        return FIXED
    merged = Dynamics()
    for n, part in enumerate(parts):
        merged.stats.update({(f"{n}/{a}", f"{n}/{b}"): st for (a, b), st in part.stats.items()})
        merged.background.update({f"{n}/{e}": bg for e, bg in part.background.items()})
        merged.detection.update({f"{n}/{e}": d for e, d in part.detection.items()})
    return merged.pooled_priors()


@dataclass
class _Estate:
    """One topology group: its real graph, its shuffled controls, and (learning) each side's full history."""

    label: str
    group: list[tuple[int, BacktestCase]]
    real: WorldGraph
    controls: list[WorldGraph]
    history: list[Dynamics]  # [real, control 0, control 1, ...], learned from every case of the group


def _estates(groups: list[list[tuple[int, BacktestCase]]], seed: int, shuffles: int, learn: bool) -> list[_Estate]:
    out = []
    for number, group in enumerate(groups):
        real = WorldGraph.from_topology(group[0][1].topology)
        controls = [shuffled(real, seed=seed * 1_000_003 + number * 101 + r) for r in range(shuffles)]
        history = []
        if learn:
            for graph in (real, *controls):
                dynamics = Dynamics()
                dynamics.learn(graph, [c.record for _, c in group])
                history.append(dynamics)
        out.append(_Estate(group[0][1].topology_name or f"topology-{number + 1}", group, real, controls, history))
    return out


def _transferred(estates: list[_Estate], number: int, side: int) -> Priors:
    """Priors for one side of one estate from the same side of every other estate (none: the fixed ones)."""
    return pooled([e.history[side] for n, e in enumerate(estates) if n != number and e.history])


def run_backtest(
    cases: Iterable[BacktestCase],
    *,
    seed: int = 0,
    shuffles: int = SHUFFLES,
    min_probability: float = 0.05,
    folds: int = 5,
    learn: bool = True,
) -> BacktestReport:
    """Real wiring against `shuffles` rewired controls; with `learn`, each side learns its own dynamics
    from the other folds of the same topology (k-fold, so no incident predicts itself), leaning where it
    has seen little on the priors pooled from the other topologies' incidents, learned on the same side
    (the real graphs for the real run, their shuffles for the control)."""
    listed = list(enumerate(cases))
    skipped = [c.name for _, c in listed if c.root not in c.topology.entities or not (c.alerted - {c.root})]
    groups: dict[tuple[tuple[str, str, str], ...], list[tuple[int, BacktestCase]]] = {}
    for i, c in listed:
        if c.name not in skipped:
            groups.setdefault(_wiring_key(c.topology), []).append((i, c))
    estates = _estates([g for _, g in sorted(groups.items())], seed, shuffles, learn)
    results: dict[int, CaseResult] = {}
    for number, estate in enumerate(estates):
        graphs = [estate.real, *estate.controls]
        learned = [
            _fold_dynamics(g, estate.group, folds, _transferred(estates, number, side)) if learn else {}
            for side, g in enumerate(graphs)
        ]
        for i, case in estate.group:
            scored = [_coverage(g, case, dyn.get(i), min_probability) for g, dyn in zip(graphs, learned, strict=True)]
            results[i] = _result(case, estate.label, scored[0], scored[1:])
    return BacktestReport(tuple(results[i] for i in sorted(results)), tuple(skipped), seed, shuffles, learn)


def _result(case: BacktestCase, label: str, scored: _Scored, control: list[_Scored]) -> CaseResult:
    return CaseResult(
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
        topology=label,
        timed_predicted=scored.timed_predicted,
        timing_errors_s=scored.timing_errors_s,
    )
