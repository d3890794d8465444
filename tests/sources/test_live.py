"""`build_live_sources`: only configured sections become sources; the rest are named gaps (None)."""

from __future__ import annotations

from pathlib import Path

from rootward.settings import load_settings
from rootward.sources.combined import CombinedChangeSource, CombinedLogSource
from rootward.sources.live import build_live_sources
from rootward.sources.loki import LokiSource
from rootward.sources.prometheus import PrometheusSource
from rootward.sources.stored_changes import StoredChangeSource
from rootward.sources.topology_merge import MergedTopologySource


def test_nothing_configured_leaves_logs_metrics_and_topology_absent(tmp_path: Path) -> None:
    sources = build_live_sources(load_settings(data_dir=tmp_path))
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
    sources = build_live_sources(settings)
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
    assert isinstance(build_live_sources(settings).logs, LokiSource)
