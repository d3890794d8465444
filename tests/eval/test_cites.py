"""Cite resolution follows the spec's cite table, form by form."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rootward.eval.cites import CiteResolver
from rootward.sources.bundle import load_bundle

EXAMPLE = "shop-connection-pool-exhaustion-00"


@pytest.fixture
def resolver(example_bundles: list[Path]) -> CiteResolver:
    path = next((p for p in example_bundles if p.name == EXAMPLE), example_bundles[0])
    return CiteResolver(load_bundle(path))


@pytest.mark.parametrize(
    ("cite", "ok"),
    [
        ("logs.jsonl:1", True),
        ("logs.jsonl:1388", True),
        ("logs.jsonl:1389", False),
        ("logs.jsonl:0", False),
        ("logs.jsonl:abc", False),
        ("metrics.csv:frontend/latency_p99_ms@1780657200-1780657200", True),
        ("metrics.csv:frontend/latency_p99_ms@1780657201-1780657229", False),
        ("metrics.csv:frontend/no_such_metric@1780657200-1780660000", False),
        ("metrics.csv:frontend/latency_p99_ms", False),
        ("changes.json:config-7596", True),
        ("changes.json:deploy-0000", False),
        ("alerts.json:93c83bbc448fe8f0", True),
        ("alerts.json:ffffffffffffffff", False),
        ("topology.yaml:payment->payment-db", True),
        ("topology.yaml:payment->node-2", True),
        ("topology.yaml:payment-db->payment", False),
        ("topology.yaml:payment", False),
        ("knowledge/runbooks/payment-latency.md#0", True),
        ("knowledge/runbooks/payment-latency.md", False),
        ("knowledge/runbooks/nope.md#0", False),
        ("grafana:some-panel", False),
    ],
)
def test_cite_forms_resolve_as_the_spec_says(resolver: CiteResolver, cite: str, ok: bool) -> None:
    assert resolver.check(cite).ok is ok, resolver.check(cite).reason


def test_resolved_cites_name_the_entity_they_are_about(resolver: CiteResolver) -> None:
    assert resolver.check("logs.jsonl:5").entities == ("checkout",)
    assert resolver.check("changes.json:config-7596").entities == ("payment",)


def test_cites_into_a_missing_source_do_not_resolve(example_bundles: list[Path], tmp_path: Path) -> None:
    copy = tmp_path / "b"
    shutil.copytree(example_bundles[0], copy)
    (copy / "logs.jsonl").unlink()
    check = CiteResolver(load_bundle(copy)).check("logs.jsonl:1")
    assert not check.ok and "missing" in check.reason
