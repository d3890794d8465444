"""Accuracy gate on freshly simulated incidents (the full golden set runs in `rootward eval`)."""

from __future__ import annotations

import json
from pathlib import Path

from rootward.engine.entry_point import investigate_bundle
from rootward.sim.generate import generate

COUNT = 15
SEED = 20260601


def test_rule_mode_finds_most_simulated_root_causes_first(tmp_path: Path) -> None:
    generated = generate(tmp_path, count=COUNT, seed=SEED)
    first = top3 = 0
    for g in generated:
        truth = json.loads((g.path / "truth.json").read_text())
        accept = {(a["entity"], a["fault_type"]) for a in [truth["root_cause"], *truth.get("also_acceptable", [])]}
        result = investigate_bundle(g.path)
        ranked = [(h.entity, h.fault_type) for h in result.hypotheses]
        assert result.dangling_evidence_ids() == [] and all(c.evidence for c in result.claims)
        first += bool(ranked) and ranked[0] in accept
        top3 += any(r in accept for r in ranked[:3])
    assert first / COUNT >= 0.8, first
    assert top3 / COUNT >= 0.9, top3
