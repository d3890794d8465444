"""The risk gate of an investigation: from a validated root cause to a remediation proposal.

Only a validated top hypothesis above the confidence floor gets a proposal,
and only when its fault type has a known fix (a rollback for a bad deploy, a
restart for a leak, a scale-out for load, a config revert for a bad config);
unknowable ones (disk full, lock contention, network faults, certificates)
stay analysis-only. Every proposal goes through the world model: a prediction
of the action's blast radius is computed, committed under the action's hash,
and the gate decides `pending_approval` or `withheld`. With no ledger given
this is a pure function (an in-memory ledger); the runtime passes
`rootward.store.worldmodel.DbPredictionLedger(session)` and stores the result
with `save_proposals`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rootward.domain.investigation import HypothesisOut
from rootward.domain.proposal import Proposal
from rootward.domain.telemetry import Change
from rootward.domain.topology import Topology
from rootward.worldmodel.autonomy import action_class
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import WorldGraph
from rootward.worldmodel.predict import UnknownTarget, predict
from rootward.worldmodel.prediction_gate import (
    MemoryLedger,
    PredictionLedger,
    ProposedAction,
    commit_prediction,
    gate,
    proposal_hash,
)
from rootward.worldmodel.settings import WorldModelSettings

HOST_KINDS = frozenset({"host", "vm", "node", "hypervisor"})
WORKLOAD_KINDS = frozenset({"service", "unknown", "worker", "job", "api", "frontend", "backend"})


@dataclass(frozen=True)
class Remedy:
    action: ProposedAction
    why: str


def _latest_change(changes: Sequence[Change], service: str, kinds: tuple[str, ...]) -> Change | None:
    mine = [c for c in changes if c.service == service and c.kind in kinds]
    return max(mine, key=lambda c: c.time) if mine else None


def remedy_for(fault_type: str, entity: str, kind: str, changes: Sequence[Change] = ()) -> Remedy | None:
    """The one action that addresses `fault_type` at `entity`, or None when no fix is knowable."""
    workload = kind not in HOST_KINDS
    if fault_type in ("deploy_regression", "crash_loop"):
        deploy = _latest_change(changes, entity, ("deploy",))
        if deploy is not None:
            return Remedy(
                ProposedAction.of("rollback", entity, change_id=deploy.id, from_version=deploy.version),
                f"roll back {deploy.id} ({deploy.version or 'unversioned'})",
            )
        if fault_type == "deploy_regression":
            return Remedy(ProposedAction.of("rollback", entity, to="previous"), "roll back to the previous version")
        return None
    if fault_type == "config_error":
        change = _latest_change(changes, entity, ("config", "feature_flag", "deploy"))
        params: dict[str, Any] = {"revert": change.id} if change else {"revert": "last"}
        return Remedy(ProposedAction.of("config_change", entity, **params), "revert the last config change")
    if fault_type in ("memory_leak", "oom_kill") and workload:
        return Remedy(ProposedAction.of("restart", entity), "restart the workload to release memory")
    if fault_type in ("traffic_surge", "cpu_saturation") and workload:
        return Remedy(ProposedAction.of("scale", entity, delta_replicas=1), "add a replica")
    if fault_type == "connection_pool_exhaustion":
        change = _latest_change(changes, entity, ("config", "deploy", "feature_flag"))
        if change is not None:
            return Remedy(
                ProposedAction.of("config_change", entity, revert=change.id),
                f"revert {change.id}, which changed the pool",
            )
        if workload:
            return Remedy(ProposedAction.of("restart", entity), "restart to release leaked connections")
    if fault_type == "dependency_down" and kind == "database":
        return Remedy(ProposedAction.of("failover", entity), "fail over to the replica")
    return None


def propose(
    hypotheses: list[HypothesisOut],
    topology: Topology,
    *,
    settings: WorldModelSettings,
    confidence_floor: float = 0.5,
    changes: Sequence[Change] = (),
    graph: WorldGraph | None = None,
    dynamics: Dynamics | None = None,
    ledger: PredictionLedger | None = None,
) -> list[Proposal]:
    """The spec's `proposals` entries for the top hypothesis (an empty list when none applies).

    `settings` is the caller's `worldmodel` section (its kill switch and prediction limits):
    required, so no caller can forget it, and never read from disk here.
    """
    if not hypotheses:
        return []
    top = hypotheses[0]
    if top.status != "validated" or top.confidence < confidence_floor:
        return []
    graph = graph or WorldGraph.from_topology(topology)
    kind = graph.kind(top.entity)
    remedy = remedy_for(top.fault_type, top.entity, kind, changes)
    if remedy is None:
        return []
    action = remedy.action
    ledger = ledger if ledger is not None else MemoryLedger()
    prediction: dict[str, Any] | None = None
    try:
        computed = predict(
            graph,
            action.target,
            action=action.verb,
            dynamics=dynamics,
            min_probability=settings.min_probability,
            max_depth=settings.max_depth,
        )
    except UnknownTarget:
        computed = None
    if computed is not None:
        prediction = computed.to_json()
        commit_prediction(ledger, action, prediction)
    decision = gate(action, ledger, settings=settings)
    return [
        Proposal(
            action=action,
            action_class=action_class(action.verb, kind),
            proposal_hash=proposal_hash(action),
            prediction=prediction,
            status=decision.status,
            reason=decision.reason,
            hypothesis=top.id,
            why=remedy.why,
        )
    ]
