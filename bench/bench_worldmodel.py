"""World model benchmark: prediction latency on a 10,000-entity graph, and the golden-set backtest.

Writes bench/results/worldmodel.json:
- `predict_p50_ms` / `predict_p95_ms` (target p50 <= 50 ms) for actions and faults at
  random targets of a generated estate, and the same for `explain_score`;
- the backtest (coverage, control ratio, hit coverage, timing) with the structural prior
  and with k-fold learned dynamics, on the golden set (`golden/` when present, else
  generated into a temporary directory) and on generated sets, two of them with seeds
  and topologies the settings were not developed on (`SETS`; topologies in
  bench/topologies/). Target: coverage >= 0.5 with control ratio <= 0.3.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

from rootward.domain.topology import Entity, Topology
from rootward.worldmodel.graph import WorldGraph
from rootward.worldmodel.predict import ACTION_VERBS, explain_score, predict

HERE = Path(__file__).resolve().parent
RESULT = HERE / "results" / "worldmodel.json"
GOLDEN = HERE.parent / "golden"


def estate(entities: int = 10_000, seed: int = 42) -> Topology:
    """A layered estate: hosts, data stores, and five tiers of services calling lower tiers."""
    rng = random.Random(seed)
    hosts = [f"host-{i}" for i in range(entities // 20)]
    stores = [(f"db-{i}", "database") for i in range(entities // 50)] + [
        (f"cache-{i}", "cache") for i in range(entities // 100)
    ]
    n_services = entities - len(hosts) - len(stores)
    tiers: list[list[str]] = [[] for _ in range(5)]
    for i in range(n_services):
        tiers[min(4, int(rng.random() ** 0.7 * 5))].append(f"svc-{i}")
    out: dict[str, Entity] = {h: Entity(h, "host") for h in hosts}
    for name, kind in stores:
        out[name] = Entity(name, kind, runs_on=(rng.choice(hosts),))
    for level, tier in enumerate(tiers):
        lower = [s for t in tiers[level + 1 :] for s in t]
        for name in tier:
            deps = rng.sample(lower, k=min(len(lower), rng.randint(1, 4))) if lower else []
            if rng.random() < 0.4:
                deps.append(rng.choice(stores)[0])
            out[name] = Entity(name, "service", depends_on=tuple(deps), runs_on=(rng.choice(hosts),))
    return Topology(entities=out)


def _timed(fn: Any, runs: list[Any]) -> list[float]:
    samples = []
    for args in runs:
        started = time.perf_counter()
        fn(*args)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[int(0.95 * (len(ordered) - 1))]


def latency(samples: int = 100) -> dict[str, Any]:
    """Timings over targets that have dependents (a leaf's prediction is trivially fast)."""
    built = time.perf_counter()
    graph = WorldGraph.from_topology(estate())
    build_ms = (time.perf_counter() - built) * 1000
    rng = random.Random(7)
    with_dependents = [n for n in graph.entities() if graph.dependents(n)]
    targets = rng.sample(with_dependents, samples * 2)
    hosts = [n for n in with_dependents if graph.kind(n) == "host"][:samples]
    runs = [(graph, t, ACTION_VERBS[i % len(ACTION_VERBS)]) for i, t in enumerate(targets[:samples])]
    faults = [(graph, t) for t in targets[samples:]]
    action_ms = _timed(lambda g, t, v: predict(g, t, action=v), runs)
    fault_ms = _timed(lambda g, t: predict(g, t, fault_type="dependency_down"), faults)
    reboot_ms = _timed(lambda g, t: predict(g, t, action="reboot"), [(graph, h) for h in hosts])
    observed = rng.sample(graph.entities(), 5)
    explain_ms = _timed(lambda g, t: explain_score(g, t, observed), faults)
    both = action_ms + fault_ms
    sizes = [len(predict(graph, t, fault_type="dependency_down").entities) for t in targets[samples:]]
    return {
        "entities": len(graph),
        "edges": graph.g.number_of_edges(),
        "build_ms": round(build_ms, 1),
        "targets": "random entities with at least one dependent",
        "predict_p50_ms": round(median(both), 3),
        "predict_p95_ms": round(_p95(both), 3),
        "predict_max_ms": round(max(both), 3),
        "predict_action_p50_ms": round(median(action_ms), 3),
        "predict_fault_p50_ms": round(median(fault_ms), 3),
        "host_reboot_p50_ms": round(median(reboot_ms), 3),
        "explain_score_p50_ms": round(median(explain_ms), 3),
        "blast_radius_entities_p50": median(sizes),
        "blast_radius_entities_max": max(sizes),
        "target_p50_ms": 50,
    }


TOPOLOGIES = HERE / "topologies"
# The sets the backtest runs on. "development": what the settings were developed on (the golden
# set; bank and saas at seed 7). "held out": seeds and topologies they were not developed on,
# looked at only once the settings were fixed.
SETS: dict[str, tuple[str, int, int, tuple[str, ...]]] = {  # name: (role, count, seed, topologies)
    "dev-bank-saas": ("development", 90, 7, ("bank.yaml", "saas.yaml")),
    "heldout-builtin-seed99": ("held out", 90, 99, ()),
    "heldout-media-iot": ("held out", 90, 42, ("media.yaml", "iot.yaml")),
    # Made and run once after the last change, never used to choose anything.
    "fresh-logistics-homelab": ("held out, final", 60, 2027, ("logistics.yaml", "homelab")),
}
KEYS = (
    "cases",
    "coverage",
    "control_coverage",
    "control_ratio",
    "hit_coverage",
    "hit_control_ratio",
    "timing_accuracy",
    "timing_median_error_s",
)


def _figures(cases: list[Any], seed: int = 0) -> dict[str, Any]:
    from rootward.worldmodel.backtest import run_backtest

    out: dict[str, Any] = {}
    for mode, learn in (("prior", False), ("learned", True)):
        report = run_backtest(cases, seed=seed, learn=learn)
        data = report.to_json()
        out[mode] = {k: data[k] for k in KEYS} | {
            "per_topology": {
                name: {k: v for k, v in figures.items() if k in ("cases", "coverage", "control_ratio")}
                for name, figures in data["per_topology"].items()
            }
        }
    return out


def _cases(directory: Path) -> tuple[list[Any], list[str]]:
    from rootward.bundle.load import load_bundle
    from rootward.eval.truth import read_truth
    from rootward.worldmodel.backtest_cases import bundle_dirs_under, load_cases

    return load_cases(bundle_dirs_under(directory), read_truth, load_bundle)


def backtest() -> dict[str, Any]:
    from rootward.sim.generate import generate, generate_golden
    from rootward.sim.topologies import BUILT_IN
    from rootward.worldmodel.backtest import run_backtest
    from rootward.worldmodel.backtest_cases import bundle_dirs_under

    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        source = GOLDEN
        if not bundle_dirs_under(GOLDEN):
            source = Path(tmp) / "golden"
            generate_golden(source)
        cases, skipped = _cases(source)
        golden = _figures(cases)
        # The control is random: how far do the ratios move with other shuffle seeds?
        for mode, learn in (("prior", False), ("learned", True)):
            ratios = [run_backtest(cases, seed=s, learn=learn).to_json()["control_ratio"] for s in range(1, 4)]
            golden[mode]["control_ratio_other_seeds"] = {"seeds": [1, 2, 3], "min": min(ratios), "max": max(ratios)}
        result["golden"] = {
            "source": "golden/" if source == GOLDEN else "generated golden set (sim.generate_golden)",
            "role": "development",
            "skipped": skipped,
            **golden,
        }
        for name, (role, count, seed, topologies) in SETS.items():
            out = Path(tmp) / name
            generate(out, count, seed, [t if t in BUILT_IN else str(TOPOLOGIES / t) for t in topologies] or None)
            cases, skipped = _cases(out)
            result[name] = {
                "role": role,
                "generated": f"rootward sim generate --count {count} --seed {seed}"
                + (
                    " --topology " + ",".join(t if t in BUILT_IN else "bench/topologies/" + t for t in topologies)
                    if topologies
                    else ""
                ),
                **_figures(cases),
            }
    return result


def main() -> dict[str, Any]:
    result = {"latency": latency(), "backtest": backtest()}
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    lat = result["latency"]
    print(f"predict p50 {lat['predict_p50_ms']} ms (p95 {lat['predict_p95_ms']}) on {lat['entities']} entities")
    for name, figures in result["backtest"].items():
        prior, learned = figures["prior"], figures["learned"]
        print(
            f"{name} ({figures['role']}): prior coverage {prior['coverage']} ratio {prior['control_ratio']}; "
            f"learned coverage {learned['coverage']} ratio {learned['control_ratio']}"
        )
    return result


if __name__ == "__main__":
    main()
