"""Blast-radius prediction: what a fault or an action at a target is expected to do.

A deterministic best-first walk from the target along dependents: the
probability that an entity is hit is the best product, over paths, of the edge
cascade probabilities (learned dynamics, smoothed, with each edge's
confidence), times the action's first-hop impact. Propagation delays add up
along that best path, which is also kept as the explanation; the entity's own
detection delay (first sign to first alert) is added once at the end, so the
predicted window is when its alerts are expected. No LLM anywhere: the same
inputs always give the same prediction, which is what lets the gate key it by
hash and the verdict check it later.

`explain_score` runs the same walk backwards for localization: how well would
a fault at a candidate explain the entities that actually alerted?
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable
from dataclasses import dataclass

from rootward.domain.prediction import PredictedAlert, PredictedEntity, Prediction
from rootward.worldmodel.dynamics import DEFAULT_RECOVERY_S, DOWNSTREAM_FAULTS, Dynamics
from rootward.worldmodel.graph import WorldGraph

WINDOW_GRACE_S = 120.0
MIN_WINDOW_S = 300.0


@dataclass(frozen=True)
class Effect:
    """How hard a cause hits the target's dependents, and what shows on the target itself."""

    impact: float  # multiplies the first hop's cascade probability
    target_alerts: tuple[str, ...]
    recovery_s: float


# Remediation verbs: a restart is a blip to callers, a reboot takes every tenant down.
ACTION_EFFECTS: dict[str, Effect] = {
    "restart": Effect(0.5, ("TargetDown", "PodRestarting"), 120.0),
    "rollback": Effect(0.4, ("TargetDown", "PodRestarting"), 300.0),
    "scale": Effect(0.1, ("PodStarting",), 120.0),
    "config_change": Effect(0.3, ("ConfigReloaded",), 300.0),
    "drain": Effect(0.3, ("NodeDrained",), 600.0),
    "failover": Effect(0.4, ("FailoverInProgress",), 300.0),
    "reboot": Effect(1.0, ("NodeDown", "TargetDown"), 600.0),
}
ACTION_VERBS: tuple[str, ...] = tuple(ACTION_EFFECTS)

# Hypothesised faults hit at full strength; the root's own alerts by fault type before any history.
FAULT_TARGET_ALERTS: dict[str, tuple[str, ...]] = {
    "cpu_saturation": ("HighCPU",),
    "memory_leak": ("HighMemory",),
    "oom_kill": ("OOMKilled", "PodRestarting"),
    "crash_loop": ("PodCrashLooping",),
    "disk_full": ("DiskFull",),
    "network_latency": ("HighLatencyP99",),
    "packet_loss": ("PacketLoss",),
    "dns_failure": ("DNSFailure",),
    "dependency_down": ("TargetDown",),
    "connection_pool_exhaustion": ("ConnectionPoolExhausted",),
    "db_lock_contention": ("SlowQueries",),
    "deploy_regression": ("HighErrorRate",),
    "config_error": ("HighErrorRate",),
    "certificate_expiry": ("CertificateExpired",),
    "traffic_surge": ("HighRequestRate",),
}


def fault_effect(fault_type: str) -> Effect:
    return Effect(1.0, FAULT_TARGET_ALERTS.get(fault_type, ()), DEFAULT_RECOVERY_S)


class UnknownTarget(KeyError):
    """The target is not in the graph: nothing can be predicted, so nothing may be proposed."""


@dataclass
class _Reach:
    probability: float
    delay_min: float
    delay_p50: float
    delay_p95: float
    recovery: float
    parent: str | None
    alerts: tuple[tuple[str, float], ...]


def _walk(
    graph: WorldGraph,
    dynamics: Dynamics,
    target: str,
    impact: float,
    min_probability: float,
    max_depth: int,
    downstream: bool = False,
) -> dict[str, _Reach]:
    """Max-product best-first search (Dijkstra on -log p), ties broken by name.

    Upstream (the default) walks to dependents: where a fault surfaces.
    Downstream walks to dependencies: where a load surge lands.
    """
    g = graph.g
    if target not in g:
        raise UnknownTarget(target)
    best: dict[str, _Reach] = {target: _Reach(1.0, 0.0, 0.0, 0.0, 0.0, None, ())}
    depth = {target: 0}
    done: set[str] = set()
    heap: list[tuple[float, str]] = [(-1.0, target)]
    ahead = g._succ if downstream else g._pred  # read-only use of networkx adjacency
    order: list[str] = []
    while heap:
        _, node = heapq.heappop(heap)
        if node in done:
            continue
        done.add(node)
        order.append(node)
        here = best[node]
        if depth[node] >= max_depth:
            continue
        first_hop = node == target
        for other, data in ahead[node].items():
            if other in done:
                continue
            dyn = (
                dynamics.edge(node, other, data["relation"], data["confidence"])
                if downstream
                else dynamics.edge(other, node, data["relation"], data["confidence"])
            )
            p = here.probability * dyn.probability * (impact if first_hop else 1.0)
            if p < min_probability:
                continue
            current = best.get(other)
            if current is not None and current.probability >= p:
                continue
            best[other] = _Reach(
                p,
                here.delay_min + dyn.delay_min_s,
                here.delay_p50 + dyn.delay_p50_s,
                here.delay_p95 + dyn.delay_p95_s,
                dyn.recovery_s,
                node,
                dyn.alerts,
            )
            depth[other] = depth[node] + 1
            heapq.heappush(heap, (-p, other))
    _noisy_or(graph, dynamics, target, impact, order, best, downstream)
    return best


def _noisy_or(
    graph: WorldGraph,
    dynamics: Dynamics,
    target: str,
    impact: float,
    order: list[str],
    best: dict[str, _Reach],
    downstream: bool,
) -> None:
    """Combine every reached cause of an entity (noisy-OR), not just its best path.

    Only causes finalized before the entity count, which keeps the combination
    acyclic (a cycle cannot feed its own probability back).
    """
    rank = {name: i for i, name in enumerate(order)}
    behind = graph.g._pred if downstream else graph.g._succ
    for name in order[1:]:
        miss = 1.0
        for cause, data in behind[name].items():
            if rank.get(cause, len(order)) >= rank[name]:
                continue
            dyn = (
                dynamics.edge(cause, name, data["relation"], data["confidence"])
                if downstream
                else dynamics.edge(name, cause, data["relation"], data["confidence"])
            )
            hop = dyn.probability * (impact if cause == target else 1.0)
            miss *= 1.0 - best[cause].probability * hop
        best[name].probability = max(best[name].probability, 1.0 - miss)


def _path(best: dict[str, _Reach], name: str) -> tuple[str, ...]:
    out = [name]
    parent = best[name].parent
    while parent is not None:
        out.append(parent)
        parent = best[parent].parent
    return tuple(reversed(out))


def predict(
    graph: WorldGraph,
    target: str,
    *,
    action: str | None = None,
    fault_type: str | None = None,
    dynamics: Dynamics | None = None,
    min_probability: float = 0.05,
    max_depth: int = 6,
) -> Prediction:
    """Expected blast radius of an action (`action=verb`) or a hypothesised fault at `target`."""
    if (action is None) == (fault_type is None):
        raise ValueError("give exactly one of action= or fault_type=")
    dynamics = dynamics or Dynamics()
    if action is not None:
        if action not in ACTION_EFFECTS:
            raise ValueError(f"unknown action {action!r}; expected one of {ACTION_VERBS}")
        effect, cause = ACTION_EFFECTS[action], f"action:{action}"
        root_alerts: tuple[tuple[str, float], ...] = tuple(
            (name, 1.0 / len(effect.target_alerts)) for name in effect.target_alerts
        )
    else:
        assert fault_type is not None
        effect, cause = fault_effect(fault_type), f"fault:{fault_type}"
        root_alerts = dynamics.root_alerts(fault_type) or tuple(
            (name, 1.0 / max(1, len(effect.target_alerts))) for name in effect.target_alerts
        )
    downstream = fault_type in DOWNSTREAM_FAULTS
    best = _walk(graph, dynamics, target, effect.impact, min_probability, max_depth, downstream)
    best[target].alerts = root_alerts
    best[target].recovery = effect.recovery_s
    best[target].delay_p95 = effect.recovery_s  # the target shows its own alerts while the cause lasts
    entities = []
    for name in sorted(best, key=lambda n: (-best[n].probability, n)):
        reach = best[name]
        if name != target:  # propagation to the entity, then its own alert rules' detection delay
            detect = dynamics.detection_window(name)
            reach.delay_min += detect.min_s
            reach.delay_p50 += detect.p50_s
            reach.delay_p95 += detect.p95_s
        alerts = tuple(PredictedAlert(name, alert, reach.probability * share) for alert, share in reach.alerts)
        entities.append(
            PredictedEntity(
                name=name,
                kind=graph.kind(name),
                probability=reach.probability,
                delay_min_s=reach.delay_min,
                delay_p50_s=reach.delay_p50,
                delay_p95_s=reach.delay_p95,
                recovery_s=reach.recovery,
                path=_path(best, name),
                alerts=alerts,
            )
        )
    latest = max((e.delay_p95_s for e in entities), default=0.0)
    window = max(MIN_WINDOW_S, latest + WINDOW_GRACE_S)
    return Prediction(target=target, cause=cause, entities=tuple(entities), window_s=math.ceil(window))


NOISE_FLOOR = 0.01  # chance that an entity alerts for reasons unrelated to the candidate fault


def explain_score(
    graph: WorldGraph,
    candidate: str,
    observed_alert_entities: Iterable[str],
    *,
    dynamics: Dynamics | None = None,
    fault_type: str = "dependency_down",
    min_probability: float = 0.02,
    max_depth: int = 6,
) -> float:
    """How well a fault at `candidate` explains the entities that alerted, in (0, 1].

    The per-observed-entity geometric mean of the likelihood of what was seen:
    each observed entity contributes its predicted probability (an entity the
    cascade does not reach only the noise floor), each predicted entity that
    stayed quiet contributes `1 - p`. The candidate itself is exempt from the
    quiet penalty, since root causes are often silent (an external gateway,
    a disk). A candidate that "explains" everything by predicting the whole
    graph pays for every entity that did not alert.
    """
    observed = set(observed_alert_entities)
    if not observed or candidate not in graph.g:
        return 0.0
    best = _walk(
        graph,
        dynamics or Dynamics(),
        candidate,
        fault_effect(fault_type).impact,
        min_probability,
        max_depth,
        fault_type in DOWNSTREAM_FAULTS,
    )
    log_likelihood = 0.0
    for name in observed:
        reach = best.get(name)
        log_likelihood += math.log(max(NOISE_FLOOR, reach.probability if reach else 0.0))
    for name, reach in best.items():
        if name != candidate and name not in observed:
            log_likelihood += math.log(max(NOISE_FLOOR, 1.0 - reach.probability))
    return math.exp(log_likelihood / len(observed))
