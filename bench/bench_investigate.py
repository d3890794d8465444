"""Investigation speed in rule mode: time to first hypothesis and total, per simulated bundle.

Targets: median first hypothesis <= 1 s, every investigation <= 5 s. Also merges
"context assembly time for a generated bundle" (target <= 300 ms) into
bench/results/context.json, next to the log-clustering figures written there by
bench_context.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from rootward.bundle.load import load_bundle
from rootward.context.assemble import assemble_context
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.knowledge_context import retrieve_knowledge
from rootward.sim.generate import generate
from rootward.sources.bundle import bundle_sources

HERE = Path(__file__).resolve().parent
RESULT = HERE / "results" / "investigate.json"
CONTEXT_RESULT = HERE / "results" / "context.json"
COUNT = 30
SEED = 4242


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _merge_context(entry: dict[str, object]) -> None:
    current: dict[str, object] = {}
    if CONTEXT_RESULT.exists():
        try:
            current = json.loads(CONTEXT_RESULT.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            current = {}
    current["context_assembly"] = entry
    CONTEXT_RESULT.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def main() -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="rootward-bench-") as tmp:
        bundles = [g.path for g in generate(Path(tmp), count=COUNT, seed=SEED)]
        investigate_bundle(bundles[0])  # warm-up: imports and first-use caches, not what an alert waits for
        first, total, assembly = [], [], []
        for path in bundles:
            result = investigate_bundle(path)
            first.append(float(result.timing.first_hypothesis_ms or 0))
            total.append(float(result.timing.total_ms))
            loaded = load_bundle(path)
            started = time.perf_counter()
            assemble_context(bundle_sources(loaded), loaded.meta, retrieve_knowledge=retrieve_knowledge)
            assembly.append((time.perf_counter() - started) * 1000)
    out: dict[str, object] = {
        "bundles": COUNT,
        "seed": SEED,
        "mode": "rule",
        "first_hypothesis_ms": {
            "median": statistics.median(first),
            "p95": _pct(first, 0.95),
            "max": max(first),
            "target_median": 1000,
        },
        "total_ms": {
            "median": statistics.median(total),
            "p95": _pct(total, 0.95),
            "max": max(total),
            "target_max": 5000,
        },
        "meets_targets": statistics.median(first) <= 1000 and max(total) <= 5000,
    }
    RESULT.parent.mkdir(exist_ok=True)
    RESULT.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    _merge_context(
        {
            "bundles": COUNT,
            "median_ms": round(statistics.median(assembly), 1),
            "p95_ms": round(_pct(assembly, 0.95), 1),
            "max_ms": round(max(assembly), 1),
            "target_ms": 300,
            "meets_target": statistics.median(assembly) <= 300,
        }
    )
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
