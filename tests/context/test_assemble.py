"""Context assembly over bundles: everything cited, missing sources named."""

from __future__ import annotations

import shutil
from pathlib import Path

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.context.assemble import assemble_context
from rootward.sources.bundle import bundle_sources
from tests.conftest import EXAMPLES

EXAMPLE = EXAMPLES / "shop-disk-full-03"


def test_every_context_item_cites_something_that_resolves() -> None:
    bundle = load_bundle(EXAMPLE)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    resolver = BundleCiteResolver(bundle)
    refs = ctx.evidence_refs()
    assert ctx.anomalies and ctx.logs and ctx.alerts
    assert [r.cite for r in refs if not resolver.resolves(r.cite)] == []


def test_context_round_trips_through_json_for_checkpoints() -> None:
    bundle = load_bundle(EXAMPLE)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    again = type(ctx).model_validate_json(ctx.model_dump_json())
    assert again == ctx


def test_missing_logs_become_a_named_gap(tmp_path: Path) -> None:
    copy = tmp_path / "b"
    shutil.copytree(EXAMPLE, copy)
    (copy / "logs.jsonl").unlink()
    bundle = load_bundle(copy)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    assert "no logs: logs.jsonl missing from bundle" in ctx.gaps
    assert ctx.logs == [] and ctx.anomalies


def test_spans_that_hold_nothing_in_the_window_are_a_named_gap(tmp_path: Path) -> None:
    import json
    from datetime import datetime, timedelta

    copy = tmp_path / "shifted"
    shutil.copytree(EXAMPLES / "nezha-ob-2022-08-23-1605-adservice", copy)
    spans = [json.loads(x) for x in (copy / "traces.jsonl").read_text().splitlines() if x.strip()]
    for s in spans:  # a time zone applied twice
        s["start"] = (datetime.fromisoformat(s["start"].replace("Z", "+00:00")) + timedelta(hours=8)).isoformat()
    (copy / "traces.jsonl").write_text("".join(json.dumps(s) + "\n" for s in spans))
    bundle = load_bundle(copy)
    ctx = assemble_context(bundle_sources(bundle), bundle.meta)
    assert any(g.startswith("no spans in the incident window") for g in ctx.gaps)
    assert ctx.trace_findings == []
    as_is = load_bundle(EXAMPLES / "nezha-ob-2022-08-23-1605-adservice")
    assert not any("no spans" in g for g in assemble_context(bundle_sources(as_is), as_is.meta).gaps)
