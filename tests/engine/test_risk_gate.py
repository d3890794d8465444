"""plan_actions: what the runtime does with a recorded investigation, decided from its result alone."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rootward.domain.alert import Alert
from rootward.domain.investigation import InvestigationResult
from rootward.domain.topology import Entity, Topology
from rootward.engine.risk_gate import Incident, plan_actions
from rootward.worldmodel.prediction_gate import ProposedAction

# checkout -> payment -> payment-db; reports is unrelated to payment-db
TOPOLOGY = Topology(
    {
        "checkout": Entity("checkout", depends_on=("payment",)),
        "payment": Entity("payment", depends_on=("payment-db",)),
        "payment-db": Entity("payment-db", kind="database"),
        "reports": Entity("reports"),
    }
)


def _alert(name: str, service: str, status: str = "firing") -> Alert:
    return Alert(
        fingerprint=f"{name}-{service}-{status}",
        name=name,
        service=service,
        severity="critical",
        status=status,  # type: ignore[arg-type]
        starts_at=datetime(2026, 6, 1, 12, tzinfo=UTC),
    )


ALERTS = (
    _alert("HighLatency", "checkout"),
    _alert("HighLatency", "checkout"),  # the same alert twice: one silence
    _alert("ErrorRate", "payment"),
    _alert("SlowQueries", "payment-db"),  # the root's own alert
    _alert("ErrorRate", "checkout", status="resolved"),
    _alert("DiskFull", "reports"),  # not a dependent of the root
)
INCIDENT = Incident("inv-1", "grp-1", "HighLatency on checkout", "checkout", priority=1, alerts=ALERTS)


def _result(status: str = "validated", confidence: float = 0.9, **extra: Any) -> InvestigationResult:
    hypotheses = [
        {"id": "H1", "entity": "payment-db", "fault_type": "db_lock_contention", "status": status,
         "confidence": confidence},
        {"id": "H2", "entity": "payment", "fault_type": "deploy_regression", "status": "invalidated",
         "confidence": 0.2},
        {"id": "H3", "entity": "checkout", "fault_type": "cpu_saturation", "status": "invalidated",
         "confidence": 0.1},
        {"id": "H4", "entity": "reports", "fault_type": "disk_full", "status": "invalidated", "confidence": 0.05},
    ]  # fmt: skip
    overall = "validated" if status == "validated" else "inconclusive"
    return InvestigationResult.model_validate(
        {"bundle": "inc-1", "status": extra.pop("overall", overall), "hypotheses": hypotheses, **extra}
    )


def _names(result: InvestigationResult, tier: str = "L2", severity: str = "P2", **kw: Any) -> list[str]:
    plan = plan_actions(result, kw.get("topology", TOPOLOGY), tier, severity, kw.get("incident", INCIDENT))
    return [a.name for a in plan.safe_actions]


def _proposal(status: str, target: str) -> dict[str, Any]:
    action = ProposedAction.of("restart", target)
    return {
        "action": action.model_dump(mode="json"),
        "action_class": "restart:service",
        "proposal_hash": f"hash-{target}",
        "prediction": {"entities": []} if status == "pending_approval" else None,
        "status": status,
    }


def test_confident_validated_root_silences_each_firing_symptom_of_its_dependents_once() -> None:
    plan = plan_actions(_result(), TOPOLOGY, "L2", "P2", INCIDENT)
    silences = [a for a in plan.safe_actions if a.name == "silence_alert"]
    assert [a.params["matchers"] for a in silences] == [
        {"alertname": "HighLatency", "service": "checkout"},
        {"alertname": "ErrorRate", "service": "payment"},
    ]
    assert all(a.params["duration_minutes"] == 30 for a in silences)
    assert silences[0].reason == "rootward: symptom of payment-db db_lock_contention (investigation inv-1)"


def test_a_root_below_confidence_0_7_silences_nothing_and_is_flagged_for_a_human() -> None:
    names = _names(_result(confidence=0.69))
    assert "silence_alert" not in names
    assert names[0] == "flag_for_human_review"


def test_symptoms_are_silenced_only_along_declared_topology() -> None:
    assert "silence_alert" not in _names(_result(), topology=None)
    elsewhere = Topology({"reports": Entity("reports")})  # the root is not a declared entity
    assert "silence_alert" not in _names(_result(), topology=elsewhere)


def test_a_confident_validated_result_is_not_flagged_but_a_p0_page_always_is() -> None:
    assert "flag_for_human_review" not in _names(_result())
    assert _names(_result(), severity="P0")[0] == "flag_for_human_review"
    assert _names(_result(status="inconclusive", confidence=0.9))[0] == "flag_for_human_review"


def test_a_validated_rca_is_filed_and_knowledge_is_queried_for_the_top_three_entities_and_the_service() -> None:
    plan = plan_actions(_result(), TOPOLOGY, "L3", "P2", INCIDENT)
    by_name = {a.name: a for a in plan.safe_actions}
    assert by_name["query_km"].params == {
        "query": "HighLatency on checkout",
        "services": ["checkout", "payment", "payment-db"],  # reports is fourth
    }
    filed = by_name["route_to_km"].params
    assert (filed["investigation_id"], filed["title"], filed["service"]) == ("inv-1", INCIDENT.title, "checkout")
    assert filed["result"]["hypotheses"][0]["entity"] == "payment-db"
    assert "retry_task" not in by_name


def test_an_inconclusive_result_is_not_filed_into_the_knowledge_base() -> None:
    assert "route_to_km" not in _names(_result(status="inconclusive"))


def test_a_failed_investigation_is_retried_with_its_group_tier_and_priority() -> None:
    failed = InvestigationResult(bundle="inc-1", status="failed", gaps=["engine failed at specialists: boom"])
    plan = plan_actions(failed, TOPOLOGY, "L2", "P1", INCIDENT)
    assert [a.name for a in plan.safe_actions] == ["flag_for_human_review", "query_km", "retry_task"]
    assert plan.safe_actions[-1].params == {"group_id": "grp-1", "tier": "L2", "priority": 1}
    assert plan.safe_actions[1].params["services"] == ["checkout"]


def test_below_l2_no_safe_action_runs_but_a_pending_proposal_still_waits_for_approval() -> None:
    result = _result(proposals=[_proposal("pending_approval", "payment-db")])
    plan = plan_actions(result, TOPOLOGY, "L1", "P2", INCIDENT)
    assert plan.safe_actions == ()
    assert plan.proposal is not None and plan.proposal.action.target == "payment-db"


def test_only_the_first_proposal_the_gate_let_through_becomes_the_approval_request() -> None:
    proposals = [
        _proposal("withheld", "payment"),
        _proposal("pending_approval", "payment-db"),
        _proposal("pending_approval", "checkout"),
    ]
    plan = plan_actions(_result(proposals=proposals), TOPOLOGY, "L2", "P2", INCIDENT)
    assert plan.proposal is not None
    assert (plan.proposal.action.target, plan.proposal.proposal_hash) == ("payment-db", "hash-payment-db")
    assert plan.proposal.prediction == {"entities": []} and plan.proposal.action_class == "restart:service"


def test_a_result_without_a_pending_proposal_requests_no_approval() -> None:
    assert plan_actions(_result(), TOPOLOGY, "L2", "P2", INCIDENT).proposal is None
    withheld = _result(proposals=[_proposal("withheld", "payment")])
    assert plan_actions(withheld, TOPOLOGY, "L2", "P2", INCIDENT).proposal is None


def test_a_no_fault_verdict_drops_to_l0_nothing_runs_and_nothing_waits_for_approval() -> None:
    result = _result(status="invalidated", overall="no_fault", proposals=[_proposal("pending_approval", "payment-db")])
    for tier in ("L2", "L3"):
        plan = plan_actions(result, TOPOLOGY, tier, "P0", INCIDENT)
        assert plan.safe_actions == () and plan.proposal is None
