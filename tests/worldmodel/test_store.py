"""The world model's tables, created by the real migrations on a temporary SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from rootward.domain.investigation import HypothesisOut
from rootward.engine.proposals import propose
from rootward.store.audit import AuditRow, append_audit
from rootward.store.db import make_engine, make_session_factory
from rootward.store.migrate import upgrade
from rootward.store.worldmodel import (
    DbPredictionLedger,
    DbVerdictHistory,
    load_dynamics,
    load_graph_records,
    proposals_of,
    save_dynamics,
    save_graph,
    save_proposals,
)
from rootward.worldmodel.autonomy import record_verdict
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import EdgeClaim, WorldGraph
from rootward.worldmodel.history import IncidentRecord, ObservedAlert
from rootward.worldmodel.prediction_gate import ProposedAction, gate
from rootward.worldmodel.settings import WorldModelSettings

from .conftest import shop_topology

NOW = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    url = f"sqlite:///{tmp_path / 'wm.db'}"
    upgrade(url)
    engine = make_engine(url)
    with make_session_factory(engine)() as s:
        yield s
    engine.dispose()


def test_graph_survives_the_database_and_expired_claims_are_not_loaded(session: Session) -> None:
    graph = WorldGraph()
    graph.seed_topology(shop_topology(), now=NOW, ttl_s=3600)
    graph.add_claim("checkout", "payment-db", EdgeClaim("learned", "depends_on", 0.6, NOW, NOW + timedelta(days=9)))
    save_graph(session, graph.entity_records(), graph.claim_records())
    session.commit()
    copy = WorldGraph.from_records(*load_graph_records(session, now=NOW))
    assert copy.claim_records() == graph.claim_records()
    later = WorldGraph.from_records(*load_graph_records(session, now=NOW + timedelta(hours=2)))
    assert [(e.source, e.target) for e in later.edges()] == [("checkout", "payment-db")]


def test_dynamics_survive_the_database(session: Session) -> None:
    graph = WorldGraph.from_topology(shop_topology())
    dynamics = Dynamics()
    alert = ObservedAlert("payment", "HighErrorRate", NOW)
    dynamics.learn(graph, [IncidentRecord("payment-db", "db_lock_contention", (alert,), fault_start=NOW)])
    save_dynamics(session, dynamics.to_records())
    session.commit()
    copy = Dynamics.from_records(load_dynamics(session))
    assert copy.edge("payment", "payment-db", "depends_on") == dynamics.edge("payment", "payment-db", "depends_on")


def test_committed_prediction_in_the_database_opens_the_gate(session: Session) -> None:
    ledger = DbPredictionLedger(session)
    hypothesis = HypothesisOut(id="H1", entity="payment", fault_type="memory_leak", status="validated", confidence=0.9)
    [item] = propose([hypothesis], shop_topology(), ledger=ledger, settings=WorldModelSettings())
    session.commit()
    action = item.action
    assert gate(action, DbPredictionLedger(session)).status == "pending_approval"
    assert gate(ProposedAction.of("restart", "checkout"), DbPredictionLedger(session)).reason == "no_prediction"
    save_proposals(session, "inv-1", [item.model_dump(mode="json")])
    session.commit()
    [row] = proposals_of(session, "inv-1")
    assert row.status == "pending_approval" and row.action_class == "restart:service"


def test_verdicts_are_stored_on_proposals_and_revocation_is_audited(session: Session) -> None:
    def audit(kind: str, subject: str, data: dict[str, Any]) -> None:
        append_audit(session, kind, subject, data)

    klass = "restart:service"
    items = [
        {
            "action": {"verb": "restart", "target": "payment", "params": {"n": i}, "reversibility": "compensable"},
            "proposal_hash": f"{i:064x}",
            "action_class": klass,
            "status": "pending_approval",
        }
        for i in range(4)
    ]
    save_proposals(session, "inv-2", items)
    history = DbVerdictHistory(session)
    allowed = [
        record_verdict(
            history, klass, item["proposal_hash"], {"outcome": outcome}, opted_in=True, window=3, audit=audit
        ).allowed
        for item, outcome in zip(items, ["match", "match", "match", "deviation"], strict=True)
    ]
    session.commit()
    assert allowed == [False, False, True, False]
    assert history.outcomes(klass, 10) == ["match", "match", "match", "deviation"]
    assert [r.verdict for r in proposals_of(session, "inv-2")] == ["match", "match", "match", "deviation"]
    kinds = [r.kind for r in session.query(AuditRow).order_by(AuditRow.id)]
    assert kinds.count("worldmodel.verdict") == 4
    assert "autonomy.granted" in kinds and kinds[-1] == "autonomy.revoked"
