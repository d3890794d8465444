"""The tool layer enforces each specialist's manifest and audits every call."""

from __future__ import annotations

from pathlib import Path

import pytest

from rootward.bundle.load import load_bundle
from rootward.context.assemble import assemble_context
from rootward.domain.investigation import TraceEntry
from rootward.engine.budget import Budget
from rootward.engine.specialists import default_specialists
from rootward.engine.tools import ManifestViolation, ToolLayer, context_tools
from rootward.sources.bundle import bundle_sources


def test_a_tool_outside_the_manifest_raises_and_is_audited(examples: Path) -> None:
    bundle = load_bundle(examples / "shop-disk-full-03")
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    audit: list[TraceEntry] = []
    layer = ToolLayer("changes", frozenset({"changes_for"}), context_tools(ctx), Budget(), audit)
    assert layer.call("changes_for", entity="payment").status == "ok"
    with pytest.raises(ManifestViolation):
        layer.call("log_templates", entity="payment")
    assert [a.status for a in audit] == ["ok", "refused"]
    assert audit[1].tool == "log_templates"


def test_specialists_have_disjoint_narrow_manifests() -> None:
    specialists = default_specialists()
    assert {s.name for s in specialists} == {"metrics", "logs", "traces", "changes", "topology", "runbooks"}
    for s in specialists:
        assert 1 <= len(s.manifest) <= 4  # logs: templates, shifts, mentions, dependents' logs
    assert not (specialists[0].manifest & specialists[1].manifest)
