"""What the alerts are about in the map: the alerting entities, or the entry points for a name the map lacks."""

from __future__ import annotations

import networkx as nx

from rootward.engine.alert_subjects import alert_subjects, entry_points
from tests.engine.small_incidents import incident

KINDS = {"web": "service", "admin": "service", "api": "service", "db": "database", "host": "host"}
EDGES = [
    ("web", "api", "depends_on"),
    ("admin", "api", "depends_on"),
    ("api", "db", "depends_on"),
    ("api", "host", "runs_on"),
]


def test_entry_points_call_others_and_nothing_calls_them() -> None:
    g = nx.DiGraph()
    for a, b, rel in EDGES:
        g.add_edge(a, b, relation=rel)
    assert entry_points(g) == ["admin", "web"]  # a host's guests do not make it an entry point


def test_an_alert_on_an_unknown_name_with_no_data_is_about_the_entry_points() -> None:
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["shop-slo"])
    ctx = ctx.model_copy(update={"topology": ctx.topology.model_copy(update={"focus": []})})
    assert alert_subjects(ctx) == ["admin", "web"]


def test_a_known_alerting_entity_or_one_with_data_is_its_own_subject() -> None:
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["api"])
    assert alert_subjects(ctx) == ["api"]
    unknown_with_data = incident(kinds=KINDS, edges=EDGES, alerting=["edge-proxy"])
    unknown_with_data = unknown_with_data.model_copy(
        update={
            "topology": unknown_with_data.topology.model_copy(update={"focus": []}),
            "telemetry": {**unknown_with_data.telemetry, "edge-proxy": ["metrics"]},
        }
    )
    assert alert_subjects(unknown_with_data) == ["edge-proxy"]
