from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rootward.ingest.payloads import parse_generic
from rootward.runtime.intake import accept_alerts
from rootward.settings import RouterSettings
from rootward.store.alert_queries import group_alerts, group_by_id, recent_alerts
from rootward.store.db import make_engine, make_session_factory

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_group_context_holds_alerts_that_joined_later(migrated_db_url: str) -> None:
    engine = make_engine(migrated_db_url)
    sessions = make_session_factory(engine)
    try:
        first = accept_alerts(
            sessions,
            parse_generic(b'{"name": "A", "service": "api"}', T0),
            source="generic",
            settings=RouterSettings(),
            now=T0,
        )
        later = T0 + timedelta(minutes=2)
        accept_alerts(
            sessions,
            parse_generic(b'{"name": "B", "service": "api"}', later),
            source="generic",
            settings=RouterSettings(),
            now=later,
        )
        with sessions() as s:
            group_id = first.decisions[0].group_id
            assert [a.name for a in group_alerts(s, group_id)] == ["A", "B"]
            group = group_by_id(s, group_id)
            assert group is not None and group.alert_count == 2
            assert [r["name"] for r in recent_alerts(s, service="api")] == ["B", "A"]
    finally:
        engine.dispose()
