"""The topology specialist: a hypothesis stands only where its fault can reach the alerting services."""

from __future__ import annotations

from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding, TraceEntry
from rootward.engine.budget import Budget
from rootward.engine.specialists.topology import TopologySpecialist
from rootward.engine.tools import ToolLayer, context_tools
from tests.engine.small_incidents import incident

# edge -> gateway -> routes -> routes-db; `reports` is called by nobody on the alert's side.
EDGES = [
    ("edge", "gateway", "depends_on"),
    ("gateway", "routes", "depends_on"),
    ("routes", "routes-db", "depends_on"),
    ("reports", "routes-db", "depends_on"),
]
KINDS = {n: "service" for n in ("edge", "gateway", "routes", "routes-db", "reports")}


def _check(alerting: str, entity: str, fault: str) -> Finding:
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=[alerting])
    specialist = TopologySpecialist()
    layer = ToolLayer(specialist.name, specialist.manifest, context_tools(ctx), Budget(), list[TraceEntry]())
    found = specialist.check(Hypothesis("H1", entity, fault, 0.5), layer)
    assert found is not None
    return found


def test_a_surge_reaches_what_the_surging_service_calls() -> None:
    found = _check("routes-db", "routes", "traffic_surge")
    assert found.status == "validated"
    assert "routes->routes-db" in found.summary


def test_a_surge_overloads_the_service_and_reaches_the_callers_waiting_on_it() -> None:
    found = _check("edge", "routes", "traffic_surge")
    assert found.status == "validated"
    assert "edge->gateway" in found.summary and "gateway->routes" in found.summary


def test_a_surge_where_neither_its_callees_nor_its_callers_alerted_is_ruled_out() -> None:
    assert _check("edge", "reports", "traffic_surge").status == "invalidated"


def test_a_failure_travels_up_the_calls_only() -> None:
    assert _check("edge", "routes-db", "deploy_regression").status == "validated"
    assert _check("routes-db", "edge", "deploy_regression").status == "invalidated"
