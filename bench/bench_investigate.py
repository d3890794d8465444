"""Investigation speed in rule mode: time to first hypothesis and total, per bundle.

Simulated case: 30 generated bundles. Targets: median first hypothesis <= 1 s,
every investigation <= 5 s. Also merges "context assembly time for a generated
bundle" (target <= 300 ms) into bench/results/context.json, next to the
log-clustering figures written there by bench_context.

Real-data case (issue 15): the real bundles of `ROOTWARD_EVAL_DATA`, else
../shared/data/nezha-ob, as they are and scaled by `bench.bundle_scaling`
(doubled spans with logs padded to 20,000 lines; metrics at 1 Hz; both; 1 Hz
metrics widened to ~500 series, `wide_1hz`). Each
set runs in a fresh process (`bench.real_data_batch`), so peak memory is that
process's resident set (Linux VmHWM, reset per bundle). Targets per set:
median first hypothesis <= 1 s, peak memory <= 500 MB. Without the data the
case is recorded as skipped, with the reason: the repo works from a clone.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bundle_scaling import VARIANTS, scale_set
from rootward.bundle.load import load_bundle
from rootward.context.assemble import assemble_context
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.knowledge_context import retrieve_knowledge
from rootward.sim.generate import generate
from rootward.sources.bundle import bundle_sources

HERE = Path(__file__).resolve().parent
RESULT = HERE / "results" / "investigate.json"
CONTEXT_RESULT = HERE / "results" / "context.json"
REPO = HERE.parent
REAL_DATA = REPO.parent / "shared" / "data" / "nezha-ob"
COUNT = 30
SEED = 4242
TARGET_FIRST_MS = 1000
TARGET_PEAK_MB = 500
# Beyond the sizes the targets are for (a scrape of ~500 series at 1 Hz): recorded, not gated,
# on every STRESS_EVERY-th bundle so the bench stays minutes long.
STRESS_SETS = frozenset({"wide_1hz"})
STRESS_EVERY = 4


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


def _stats(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "p90": _pct(values, 0.9), "max": max(values)}


def _real_bundles() -> tuple[list[Path], str]:
    """The real bundles to measure, and where they came from (empty with the reason when absent)."""
    configured = os.environ.get("ROOTWARD_EVAL_DATA")
    root = Path(configured) if configured else REAL_DATA
    if not root.is_dir():
        return [], f"no real bundles: {root} is not a directory (set ROOTWARD_EVAL_DATA)"
    bundles = sorted(p for p in root.iterdir() if (p / "incident.yaml").is_file())
    if not bundles:
        return [], f"no real bundles: {root} holds no bundle directory"
    return bundles, str(root)


def run_batch(bundles: list[Path]) -> tuple[list[dict[str, Any]], float]:
    """Investigate `bundles` in a fresh process; its per-bundle records and its own peak RSS."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.real_data_batch", *map(str, bundles)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    process = next(r["process_peak_rss_mb"] for r in rows if "process_peak_rss_mb" in r)
    return [r for r in rows if "bundle" in r], float(process)


def summarise(rows: list[dict[str, Any]], process_peak_mb: float) -> dict[str, Any]:
    first = [float(r["first_hypothesis_ms"] or 0) for r in rows]
    peak = [float(r["peak_rss_mb"]) for r in rows]
    phases = sorted({k for r in rows for k in r["phases_ms"]})
    out: dict[str, Any] = {
        "bundles": len(rows),
        "first_hypothesis_ms": _stats(first),
        "total_ms": _stats([float(r["total_ms"]) for r in rows]),
        "cpu_ms": _stats([float(r["cpu_ms"]) for r in rows]),
        "peak_rss_mb": _stats(peak),
        "process_peak_rss_mb": process_peak_mb,
        "memory_method": rows[0]["memory"],
        "phases_ms": {k: _stats([float(r["phases_ms"].get(k, 0.0)) for r in rows]) for k in phases},
        "sizes": {k: _stats([float(r[k]) for r in rows]) for k in ("spans", "log_lines", "metric_samples")},
        "statuses": {s: sum(r["status"] == s for r in rows) for s in sorted({r["status"] for r in rows})},
        "meets_targets": statistics.median(first) <= TARGET_FIRST_MS and max(peak) <= TARGET_PEAK_MB,
    }
    return out


def _measured(bundles: list[Path]) -> dict[str, Any]:
    """One set in a fresh process, with the machine's load around it (wall times stretch when cores are shared)."""
    before = os.getloadavg()[0]
    summary = summarise(*run_batch(bundles))
    summary["load_average"] = {"before": round(before, 2), "after": round(os.getloadavg()[0], 2)}
    return summary


def real_data_case() -> dict[str, Any]:
    """The real bundles and their scaled twins, one fresh process each."""
    bundles, source = _real_bundles()
    if not bundles:
        return {"skipped": source}
    sets: dict[str, Any] = {"real": _measured(bundles)}
    for name, scaling in VARIANTS.items():
        stress = name in STRESS_SETS
        with tempfile.TemporaryDirectory(prefix=f"rootward-bench-{name}-") as tmp:
            scaled = scale_set(bundles[::STRESS_EVERY] if stress else bundles, Path(tmp), scaling)
            sets[name] = {"scaling": scaling.__dict__, "gated": not stress, **_measured(scaled)}
    return {
        "source": source,
        "mode": "rule",
        "first_hypothesis": "result.timing.first_hypothesis_ms: from the investigation's start, bundle load included",
        "cpu_ms": "CPU time of the whole investigation in its process: what it costs on cores of its own",
        "targets": {"first_hypothesis_median_ms": TARGET_FIRST_MS, "peak_rss_mb": TARGET_PEAK_MB},
        "cpus": os.cpu_count(),
        "sets": sets,
        "meets_targets": all(s["meets_targets"] for s in sets.values() if s.get("gated", True)),
    }


def simulated_case() -> dict[str, object]:
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
    return out


def main() -> dict[str, object]:
    # The real-data sets run first: each is a fresh process, yet run after the in-process simulated
    # case they measured ~1.8x slower (likely what that case leaves running here; not established).
    real = real_data_case()
    out = simulated_case()
    out["real_data"] = real
    RESULT.parent.mkdir(exist_ok=True)
    RESULT.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
