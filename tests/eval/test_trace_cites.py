"""The evaluator scores trace cites with the same grammar as the verifier: resolved ones count, others are named."""

from __future__ import annotations

import json
from pathlib import Path

from rootward.eval.runner import score_one
from tests.bundle.tiny import write_bundle

TRUTH = {"root_cause": {"entity": "db", "fault_type": "network_latency"}}


def test_trace_cites_are_checked_against_the_bundles_spans(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (root / "truth.json").write_text(json.dumps(TRUTH))
    cites = {
        "E1": "traces.jsonl:2",
        "E2": "traces.jsonl:api@1773498600-1773498700",
        "E3": "traces.jsonl:api->db@1773498600-1773498700",
        "E4": "traces.jsonl:3",
        "E5": "traces.jsonl:db->api@1773498600-1773498700",
        "E6": "traces.jsonl:api->db",
    }
    raw = {
        "bundle": "tiny-01",
        "status": "inconclusive",
        "claims": [{"text": "calls from api into db slowed", "evidence": ["E3"]}],
        "evidence": {eid: {"kind": "trace", "cite": cite} for eid, cite in cites.items()},
    }
    score = score_one(root, raw, wall_ms=5, error=None).score
    assert (score.cites_total, score.cites_resolved) == (6, 3)
    assert [bad.split(": ", 1)[0] for bad in score.bad_cites] == [cites["E4"], cites["E5"], cites["E6"]]
    assert score.truth_in_evidence  # the resolved spans are about db, the true culprit
