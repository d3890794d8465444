"""Merging topology layers, the topology file source, and partial gaps of combined sources."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rootward.domain.telemetry import Change, LogRecord
from rootward.domain.topology import Entity, Topology
from rootward.sources.base import SourceUnavailable
from rootward.sources.combined import CombinedChangeSource, CombinedLogSource
from rootward.sources.topology_file import TopologyFileSource
from rootward.sources.topology_merge import MergedTopologySource, merge_topologies

T = datetime(2026, 3, 14, 13, 44, tzinfo=UTC)


def _topology(*entities: Entity) -> Topology:
    return Topology(entities={e.name: e for e in entities})


def test_merge_unions_edges_and_takes_kind_from_the_first_layer() -> None:
    declared = _topology(
        Entity("payment", "service", depends_on=("payment-db",)),
        Entity("payment-db", "database"),
    )
    cluster = _topology(
        Entity("payment", "workload", runs_on=("node-2",), attributes={"namespace": "shop"}),
        Entity("payment-db", "service", runs_on=("node-3",)),
        Entity("node-2", "host"),
    )
    merged = merge_topologies([declared, cluster])
    assert merged.entities["payment"].kind == "service"
    assert merged.entities["payment"].dependencies == ("payment-db", "node-2")
    assert merged.entities["payment"].attributes == {"namespace": "shop"}
    assert merged.entities["payment-db"].kind == "database"
    assert merged.has_edge("payment-db", "node-3")
    assert "node-2" in merged.entities


def test_unknown_kind_gives_way_to_a_known_one_from_a_later_layer() -> None:
    merged = merge_topologies([_topology(Entity("cache", "unknown")), _topology(Entity("cache", "database"))])
    assert merged.entities["cache"].kind == "database"


class Down:
    def graph(self) -> Topology:
        raise SourceUnavailable("Kubernetes", "cannot connect (connection refused)")

    def query(self, *_args: object, **_kw: object) -> list[LogRecord]:
        raise SourceUnavailable("Loki", "timed out after 30 s")

    def recent(self, *_args: object) -> list[Change]:
        raise SourceUnavailable("GitHub", "HTTP 502")


class Up:
    def graph(self) -> Topology:
        return _topology(Entity("payment"))

    def query(self, *_args: object, **_kw: object) -> list[LogRecord]:
        return [LogRecord(T, "payment", "pod restarted")]

    def recent(self, *_args: object) -> list[Change]:
        return [Change("c1", "deploy", "payment", T), Change("c0", "config", "payment", T - timedelta(hours=1))]


def test_a_dead_layer_is_a_named_gap_and_the_rest_still_answers() -> None:
    source = MergedTopologySource([("kubernetes", Down()), ("file", Up())])
    assert list(source.graph().entities) == ["payment"]
    assert source.gaps == ["Kubernetes: cannot connect (connection refused)"]


def test_all_layers_dead_is_unavailable_with_every_reason() -> None:
    with pytest.raises(SourceUnavailable, match="connection refused"):
        MergedTopologySource([("kubernetes", Down())]).graph()


def test_combined_logs_and_changes_keep_answering_with_one_part_down() -> None:
    logs = CombinedLogSource([Down(), Up()])
    assert [r.message for r in logs.query("payment", T, T)] == ["pod restarted"]
    assert logs.gaps == ["Loki: timed out after 30 s"]
    changes = CombinedChangeSource([Up(), Down(), Up()])
    assert [c.id for c in changes.recent(None, T - timedelta(days=1), T)] == ["c1", "c0"]  # newest first, no doubles
    assert changes.gaps == ["GitHub: HTTP 502"]
    with pytest.raises(SourceUnavailable, match="timed out"):
        CombinedLogSource([Down()]).query(None, T, T)


def test_topology_file_is_read_and_reread_when_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "topology.yaml"
    path.write_text("entities:\n  checkout:\n    depends_on: [payment]\n")
    source = TopologyFileSource(path)
    assert source.graph().has_edge("checkout", "payment")
    path.write_text("entities:\n  checkout:\n    depends_on: [cart]\n    runs_on: node-1\n")
    import os

    os.utime(path, (1, 1))
    assert source.graph().has_edge("checkout", "cart")


def test_missing_or_broken_topology_file_is_a_gap(tmp_path: Path) -> None:
    with pytest.raises(SourceUnavailable, match="cannot read"):
        TopologyFileSource(tmp_path / "nope.yaml").graph()
    broken = tmp_path / "broken.yaml"
    broken.write_text("entities: [a, b]\n")
    with pytest.raises(SourceUnavailable, match="entities"):
        TopologyFileSource(broken).graph()
