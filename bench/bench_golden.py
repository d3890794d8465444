"""Golden-set benchmark: simulator speed and the engine's scores on a slice of the golden set.

Generates the full golden set (75 bundles) into a temp dir, timing it, then
runs `rootward eval` logic on 30 of them (2 per fault type, all topologies)
with 2 worker processes, so the run stays well under 3 minutes on a shared
2-core machine. The full-set numbers come from `make golden` + `rootward eval
golden`; this file tracks the trend.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from rootward.eval.report import build_report
from rootward.eval.runner import evaluate
from rootward.sim.generate import generate_golden

HERE = Path(__file__).resolve().parent
SLICE = 30


def main() -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="rootward-golden-") as tmp:
        started = time.monotonic()
        made = generate_golden(Path(tmp))
        gen_s = time.monotonic() - started
        size = sum(f.stat().st_size for g in made for f in g.path.rglob("*") if f.is_file())
        bundles = [g.path for g in made[:SLICE]]
        started = time.monotonic()
        scored = evaluate(bundles, jobs=2)
        eval_s = time.monotonic() - started
    report = build_report([s.score for s in scored], wall_s=eval_s, jobs=2)
    result: dict[str, object] = {
        "golden_bundles": len(made),
        "generate_s": round(gen_s, 2),
        "generate_ms_per_bundle": round(1000 * gen_s / len(made), 1),
        "golden_mb": round(size / 2**20, 1),
        "eval_slice": SLICE,
        "eval_s": round(eval_s, 2),
        "summary": report["summary"],
        "by_fault_type": report["by_fault_type"],
    }
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "golden.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    return result


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
