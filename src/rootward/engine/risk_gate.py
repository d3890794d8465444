"""The risk gate's decision on a finished investigation: which safe actions run, which proposal waits.

`engine/proposals.py` turns a validated root cause into a predicted, gated
remediation proposal; this module decides, from the recorded result alone,
what the runtime then does with the investigation. It is a pure function:
`plan_actions` returns an `ActionPlan` and `actions/` performs it (the safe
actions through their registry, the proposal as an approval request).

At L2 and L3 every investigation gets safe actions:
- `flag_for_human_review` unless the result is validated with a top confidence
  of at least 0.7, and always for a P0 page;
- `silence_alert` for the cascade symptoms of a confident, validated root cause:
  firing alerts of services that depend on it along the *declared* topology
  (never learned edges), never the root's own alerts, for 30 minutes;
- `query_km` for related runbooks and postmortems;
- `route_to_km` to file a validated RCA for the next incident;
- `retry_task` when the investigation could not finish.

At any tier, the first proposal the world-model gate let through
(`pending_approval`) becomes the approval request: one remediation at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from rootward.domain.alert import Alert
from rootward.domain.investigation import HypothesisOut, InvestigationResult
from rootward.domain.proposal import ProposedAction
from rootward.domain.safe_actions import SafeAction
from rootward.domain.topology import Topology

ACTING_TIERS = frozenset({"L2", "L3"})
CONFIDENT = 0.7  # below this (or unvalidated) a human looks, and no symptom is silenced
VICTIM_SILENCE_MINUTES = 30


@dataclass(frozen=True)
class Incident:
    """What the plan needs of the incident beyond its result: who it is, and its firing alerts."""

    investigation_id: str
    group_id: str
    title: str
    service: str
    priority: int = 2
    alerts: Sequence[Alert] = ()


@dataclass(frozen=True)
class RemediationRequest:
    """The proposal to put before an approver, with the prediction the gate checked it against."""

    action: ProposedAction
    proposal_hash: str
    prediction: dict[str, Any]
    action_class: str | None


@dataclass(frozen=True)
class ActionPlan:
    safe_actions: tuple[SafeAction, ...] = ()
    proposal: RemediationRequest | None = None


def plan_actions(
    result: InvestigationResult, topology: Topology | None, tier: str, severity: str, incident: Incident
) -> ActionPlan:
    """Everything the runtime does with a recorded investigation, decided from its result.

    A `no_fault` verdict drops the incident to L0: nothing runs and nothing is proposed.
    """
    if result.status == "no_fault":
        return ActionPlan()
    safe = safe_actions(result, topology, tier, severity, incident) if tier in ACTING_TIERS else []
    return ActionPlan(tuple(safe), remediation_request(result))


def safe_actions(
    result: InvestigationResult, topology: Topology | None, tier: str, severity: str, incident: Incident
) -> list[SafeAction]:
    """The L2 safe actions of an investigation, in the order they run."""
    top = result.hypotheses[0] if result.hypotheses else None
    confidence = top.confidence if top is not None else 0.0
    actions: list[SafeAction] = []
    if result.status != "validated" or confidence < CONFIDENT or severity == "P0":
        actions.append(SafeAction("flag_for_human_review", reason="low confidence or page: a human should look"))
    actions += victim_silences(result, topology, incident)
    services = sorted({h.entity for h in result.hypotheses[:3]} | {incident.service})
    related = {"query": incident.title, "services": services}
    actions.append(SafeAction("query_km", related, reason="related runbooks and postmortems"))
    if result.status == "validated":
        filed = {
            "investigation_id": incident.investigation_id,
            "title": incident.title,
            "service": incident.service,
            "result": result.model_dump(mode="json"),
        }
        actions.append(SafeAction("route_to_km", filed, reason="file the RCA for the next incident"))
    if result.status == "failed":  # an engine that failed publishes a failed result
        again = {"group_id": incident.group_id, "tier": tier, "priority": incident.priority}
        actions.append(SafeAction("retry_task", again, reason="the investigation could not finish"))
    return actions


def victim_silences(result: InvestigationResult, topology: Topology | None, incident: Incident) -> list[SafeAction]:
    """Silences of the cascade symptoms of a confident, validated root cause, never of the root's own alerts."""
    top: HypothesisOut | None = result.hypotheses[0] if result.hypotheses else None
    if top is None or top.status != "validated" or top.confidence < CONFIDENT:
        return []
    if topology is None or top.entity not in topology.entities:
        return []
    graph = nx.DiGraph([(s, t) for s, t, _ in topology.edges()])
    root = top.entity
    dependents = nx.ancestors(graph, root) if root in graph else set()
    actions: list[SafeAction] = []
    seen: set[tuple[str, str]] = set()
    for alert in incident.alerts:
        if alert.status != "firing" or alert.service == root or alert.service not in dependents:
            continue
        key = (alert.name, alert.service)
        if key in seen:
            continue
        seen.add(key)
        matchers = {"alertname": alert.name, "service": alert.service}
        actions.append(
            SafeAction(
                "silence_alert",
                {"matchers": matchers, "duration_minutes": VICTIM_SILENCE_MINUTES},
                reason=f"rootward: symptom of {root} {top.fault_type} (investigation {incident.investigation_id})",
            )
        )
    return actions


def remediation_request(result: InvestigationResult) -> RemediationRequest | None:
    """The first proposal the gate let through, as an approval request; None when none waits."""
    for proposal in result.proposals:
        if not proposal.pending:
            continue
        return RemediationRequest(
            action=proposal.action,
            proposal_hash=proposal.proposal_hash,
            prediction=dict(proposal.prediction or {}),
            action_class=proposal.action_class or None,
        )
    return None
