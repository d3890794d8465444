"""What the incident list shows as the cause of a stored investigation."""

from __future__ import annotations

from rootward.domain.investigation import HypothesisOut, InvestigationResult
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import save_investigation


def _result(*statuses: str) -> InvestigationResult:
    hypotheses = [
        HypothesisOut(id=f"H{i}", entity=f"svc{i}", fault_type="traffic_surge", status=s, confidence=0.4)  # type: ignore[arg-type]
        for i, s in enumerate(statuses, start=1)
    ]
    return InvestigationResult(bundle="b", status="inconclusive", hypotheses=hypotheses)


def test_an_invalidated_hypothesis_is_never_listed_as_the_root_cause(sqlite_migrated_url: str) -> None:
    engine = make_engine(sqlite_migrated_url)
    with make_session_factory(engine)() as session, session.begin():
        skipped = save_investigation(session, _result("invalidated", "inconclusive"), title="t", service="orders")
        none_left = save_investigation(session, _result("invalidated", "invalidated"), title="t", service="orders")
        assert (skipped.top_entity, skipped.confidence) == ("svc2", 0.4)
        assert (none_left.top_entity, none_left.top_fault, none_left.confidence) == ("", "", None)
    engine.dispose()
