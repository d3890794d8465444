"""`build_live_sources`: only configured sections become sources; the rest are named gaps (None)."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import patch

import pytest

from rootward.settings import Settings, load_settings
from rootward.sources.base import SourceSet
from rootward.sources.combined import CombinedChangeSource, CombinedLogSource
from rootward.sources.connector import Connector
from rootward.sources.live import build_live_sources, connector_sources
from rootward.sources.loki import LokiSettings, LokiSource
from rootward.sources.prometheus import PrometheusSource
from rootward.sources.settings import CONNECTORS
from rootward.sources.stored_changes import StoredChangeSource
from rootward.sources.topology_merge import MergedTopologySource
from rootward.store.db import make_engine, make_session_factory


def _live(settings: Settings) -> SourceSet:
    """As the runtime wires it: the configured sections plus the changes CI/CD recorded."""
    recorded = StoredChangeSource(make_session_factory(make_engine(settings.database_url)))
    return build_live_sources(settings.connector_sections(), settings.topology, recorded_changes=recorded)


def test_nothing_configured_leaves_logs_metrics_and_topology_absent(tmp_path: Path) -> None:
    sources = _live(load_settings(data_dir=tmp_path))
    assert sources.logs is None and sources.metrics is None and sources.topology is None
    assert isinstance(sources.changes, StoredChangeSource)  # CI/CD-recorded changes are always there
    assert list(sources.alerts.alerts()) == []


def test_configured_sections_become_connectors_and_are_combined(tmp_path: Path) -> None:
    topology = tmp_path / "topology.yaml"
    topology.write_text("entities:\n  checkout:\n    depends_on: [payment]\n")
    settings = load_settings(
        data_dir=tmp_path,
        prometheus={"base_url": "http://127.0.0.1:9"},
        loki={"base_url": "http://127.0.0.1:9"},
        kubernetes={"host": "http://127.0.0.1:9"},
        github={"repos": [{"repo": "acme/payments"}]},
        topology={"file": str(topology)},
    )
    sources = _live(settings)
    assert isinstance(sources.metrics, PrometheusSource)
    assert isinstance(sources.logs, CombinedLogSource) and len(sources.logs.parts) == 2
    assert isinstance(sources.changes, CombinedChangeSource) and len(sources.changes.parts) == 3
    assert isinstance(sources.topology, MergedTopologySource)
    assert [name for name, _ in sources.topology.layers] == ["file", "kubernetes", "prometheus"]
    # Kubernetes and Prometheus are down here: the file alone answers, the others are gaps.
    graph = sources.topology.graph()
    assert graph.has_edge("checkout", "payment")
    assert len(sources.topology.gaps) == 2


def test_loki_alone_is_the_log_source_itself(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, loki={"base_url": "http://127.0.0.1:9"})
    assert isinstance(_live(settings).logs, LokiSource)


def test_github_without_repositories_asks_nothing(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, github={"token": "t"})
    assert isinstance(_live(settings).changes, StoredChangeSource)


def test_a_topology_switch_keeps_that_connector_out_of_the_merged_graph(tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path,
        prometheus={"base_url": "http://127.0.0.1:9"},
        kubernetes={"host": "http://127.0.0.1:9"},
        topology={"from_kubernetes": False},
    )
    topology = _live(settings).topology
    assert isinstance(topology, MergedTopologySource)
    assert [name for name, _ in topology.layers] == ["prometheus"]


def test_every_connector_in_the_table_is_a_config_section_with_its_model(tmp_path: Path) -> None:
    schema = Settings.model_json_schema()
    for connector in CONNECTORS:
        assert schema["properties"][connector.name]["description"] == connector.description
    settings = load_settings(data_dir=tmp_path, loki={"base_url": "http://127.0.0.1:9"})
    assert settings.connector_sections() == {"loki": LokiSettings(base_url="http://127.0.0.1:9")}


def test_a_connector_that_does_not_implement_what_it_claims_is_refused() -> None:
    liar = Connector(
        name="liar", settings=LokiSettings, description="", provides=frozenset({"metrics"}), build=LokiSource
    )
    with patch("rootward.sources.live.CONNECTORS", (liar,)), pytest.raises(TypeError, match="liar"):
        connector_sources({"liar": LokiSettings(base_url="http://127.0.0.1:9")})
