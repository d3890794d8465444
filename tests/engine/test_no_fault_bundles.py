"""Whole investigations over simulated healthy and hard-fault bundles: the verdict end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.rca import render_markdown
from rootward.eval.runner import investigation_view
from rootward.sim.hard_cases import hard_case_files
from rootward.sim.healthy import HEALTHY_KINDS
from rootward.sim.render import write_bundle


def _investigate(kind: str, index: int, tmp_path: Path):  # type: ignore[no-untyped-def]
    bundle_id, files = hard_case_files(kind, index, "tests")
    path = write_bundle(files, tmp_path / bundle_id)
    with investigation_view(path) as view:
        return investigate_bundle(view), path


@pytest.mark.parametrize("kind", HEALTHY_KINDS)
def test_healthy_bundle_gets_no_fault_with_every_claim_cited(kind: str, tmp_path: Path) -> None:
    result, path = _investigate(kind, 0, tmp_path)
    assert result.status == "no_fault" and result.no_fault
    assert result.claims[0].text.startswith("No current fault: ")
    assert all(c.evidence for c in result.claims)
    resolver = BundleCiteResolver(load_bundle(path))
    assert all(resolver.resolves(e.cite) for e in result.evidence.values())
    assert not result.dangling_evidence_ids()
    assert result.proposals == []
    assert result.gates is not None and result.gates.analysis_only
    assert all(h.status == "invalidated" for h in result.hypotheses)
    assert "no_fault" in render_markdown(result).splitlines()[0]


@pytest.mark.parametrize("kind", ["dual-fault", "missing-metric"])
def test_hard_fault_bundles_are_never_called_no_fault(kind: str, tmp_path: Path) -> None:
    for index in range(2):
        result, _ = _investigate(kind, index, tmp_path)
        assert result.status != "no_fault"
        assert any(h.status == "validated" for h in result.hypotheses)
