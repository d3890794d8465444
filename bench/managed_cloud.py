"""Managed-cloud-like incidents at 5-minute samples, metrics only: a check written apart from the simulator.

    python -m bench.managed_cloud OUT [--count 60] [--seed 7] [--noisy] [--kinds latency,errors,ramp,surge]

The simulator (`rootward.sim`) and the engine were written side by side, so a
method can fit the simulator's way of rendering a fault without anyone
noticing. This generator shares no code with it and renders incidents the way
a managed cloud reports them: an API tier, functions and tables in a layered
call graph, one latency, one error count and one request count per component
at 5-minute periods (CloudWatch's `TargetResponseTime`, `Duration`,
`SuccessfulRequestLatency`, `HTTPCode_Target_5XX_Count`, `Errors`,
`Invocations`, ... or plain `latency` / `availability` / `requests`), and, as
CloudWatch does, no data point for a period whose error count was zero.

Latency adds up along the calls (each caller waits for its callees), errors
propagate to callers in part, traffic has a daily swing, and one sample in
~70 is a lone spike that propagates too. A fault at one component (mostly not
the entry) adds latency of 0.5-4x its normal total, or a failing share of
3-40 %, from its onset to the end of the window (`--kinds` also draws growing
delays, `ramp`, 1-6x by the window's end, and request overloads, `surge`:
2-5x the requests arriving at the component from outside, which it and what
it calls pass on and queue under); a third of the bundles also
get a traffic shift at an unrelated component. The alert fires on the entry
that sees the fault most, 5-15 minutes after the onset. `truth.json` names the
component (network_latency for added latency, deploy_regression for errors,
memory_leak for a growing delay, traffic_surge for an overload).
"""

from __future__ import annotations

import argparse
import json
import math
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

STEP_S = 300
WORDS = "pet order cart user auth search pay ship stock price image notify audit promo review feed tag geo rate mail"
# Per kind: CloudWatch's latency, error-count and request-count names, and the latency's unit (seconds or ms).
CLOUDWATCH = {
    "api": ("TargetResponseTime", "HTTPCode_Target_5XX_Count", "RequestCount", 0.001),
    "fn": ("Duration", "Errors", "Invocations", 1.0),
    "table": ("SuccessfulRequestLatency", "SystemErrors", "ConsumedReadCapacityUnits", 1.0),
}


@dataclass
class Component:
    name: str
    layer: int
    kind: str
    callees: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Fault:
    root: str
    kind: str  # "latency", "errors", "ramp" (latency growing, as a leak) or "surge" (requests from outside)
    magnitude: float
    onset: int  # sample index


@dataclass(frozen=True)
class Noise:
    """How far samples wander: per-period latency spread, lone-spike share and size, traffic spread."""

    latency_sigma: float = 0.08
    spike_share: float = 0.015
    spike_top: float = 4.0
    traffic_sigma: float = 0.05


NOISY = Noise(latency_sigma=0.3, spike_share=0.05, spike_top=6.0, traffic_sigma=0.2)


@dataclass(frozen=True)
class Sample:
    requests: float  # per second
    latency_ms: float
    failing: float  # share of requests that failed


def call_graph(rng: random.Random) -> list[Component]:
    """A layered graph: one or two entries, tables and functions deeper, every component called by someone."""
    n = rng.randint(14, 32)
    layers = [rng.randint(1, 2)]
    while sum(layers) < n:
        layers.append(rng.randint(2, 6))
    words, names, nodes = WORDS.split(), set[str](), list[Component]()
    for layer, size in enumerate(layers):
        last = layer == len(layers) - 1
        for _ in range(size):
            kind = "api" if layer == 0 else rng.choice(["table", "fn"] if last else ["api", "fn", "table"])
            name = f"{rng.choice(words)}-{rng.choice(words)}-{kind}"
            while name in names:
                name = f"{rng.choice(words)}-{rng.choice(words)}-{kind}"
            names.add(name)
            nodes.append(Component(name, layer, kind))
    for node in nodes:
        lower = [m for m in nodes if m.layer > node.layer]
        if node.kind == "table" or not lower:
            continue
        chosen = {rng.choice([m for m in lower if m.layer == node.layer + 1] or lower).name}
        while len(chosen) < rng.randint(1, min(4, len(lower))):
            chosen.add(rng.choice(lower).name)
        node.callees = sorted(chosen)
    for node in nodes:
        if node.layer and not any(node.name in m.callees for m in nodes):
            rng.choice([m for m in nodes if m.layer < node.layer and m.kind != "table"]).callees.append(node.name)
    return nodes


def simulate(
    rng: random.Random,
    nodes: list[Component],
    steps: int,
    fault: Fault,
    shift: tuple[str, int, float] | None,
    noise: Noise = Noise(),
) -> dict[str, list[Sample]]:
    """Every component's samples, leaves first so each caller adds what it waited for."""
    leaves_first = sorted(nodes, key=lambda c: -c.layer)
    own = {c.name: rng.uniform(5, 80) for c in nodes}
    base_failing = {c.name: rng.uniform(0.0, 0.002) for c in nodes}
    calls = {(c.name, x): rng.choice([1, 1, 1, 2]) for c in nodes for x in c.callees}
    passes_on = {(c.name, x): rng.uniform(0.4, 1.0) for c in nodes for x in c.callees}
    entry_rate = {c.name: rng.uniform(0.5, 10) for c in nodes if c.layer == 0}
    normal: dict[str, float] = {}
    for c in leaves_first:
        normal[c.name] = own[c.name] + sum(calls[(c.name, x)] * normal[x] for x in c.callees)
    loaded = reached(nodes, fault.root) if fault.kind == "surge" else set[str]()
    # Drawn in name order: a set iterates in the order of the process's string hash seed.
    strain = {c: rng.uniform(0.5, 1.5) if c == fault.root else rng.uniform(0.05, 0.4) for c in sorted(loaded)}
    phase = rng.uniform(0, 2 * math.pi)
    out: dict[str, list[Sample]] = {c.name: [] for c in nodes}
    for i in range(steps):
        daily = 1 + 0.3 * math.sin(2 * math.pi * i * STEP_S / 86400 + phase)
        rate = {c.name: 0.0 for c in nodes}
        for c in sorted(nodes, key=lambda c: c.layer):
            if c.layer == 0:
                rate[c.name] = entry_rate[c.name] * daily * rng.lognormvariate(0, noise.traffic_sigma)
            if fault.kind == "surge" and c.name == fault.root and i >= fault.onset:
                rate[c.name] *= fault.magnitude  # the extra requests come from outside: its callers see none of them
            for x in c.callees:
                rate[x] += rate[c.name] * calls[(c.name, x)]
        if shift and i >= shift[1]:
            rate[shift[0]] *= shift[2]
        latency: dict[str, float] = {}
        failing: dict[str, float] = {}
        for c in leaves_first:
            work = own[c.name] * rng.lognormvariate(0, noise.latency_sigma)
            work *= rng.uniform(2, noise.spike_top) if rng.random() < noise.spike_share else 1  # a lone spike
            fails = base_failing[c.name] * rng.lognormvariate(0, 0.3)
            if c.name == fault.root and i >= fault.onset:
                if fault.kind == "latency":
                    work += normal[c.name] * fault.magnitude
                elif fault.kind == "ramp":
                    work += normal[c.name] * fault.magnitude * (i - fault.onset + 1) / (steps - fault.onset)
                elif fault.kind == "errors":
                    fails += fault.magnitude
            if fault.kind == "surge" and i >= fault.onset and c.name in loaded:
                # Past its capacity a component queues: the surged one most, what it calls less so.
                work *= 1 + strain[c.name] * (fault.magnitude - 1)
            latency[c.name] = work + sum(calls[(c.name, x)] * latency[x] for x in c.callees)
            failing[c.name] = min(1.0, fails + sum(passes_on[(c.name, x)] * failing[x] for x in c.callees))
        for c in nodes:
            out[c.name].append(Sample(rate[c.name], latency[c.name], failing[c.name]))
    return out


def reached(nodes: list[Component], start: str) -> set[str]:
    """Every component `start` calls, directly or not, and itself."""
    by_name = {c.name: c for c in nodes}
    seen, todo = {start}, [start]
    while todo:
        for x in by_name[todo.pop()].callees:
            if x not in seen:
                seen.add(x)
                todo.append(x)
    return seen


def _metrics_csv(
    rng: random.Random, nodes: list[Component], samples: dict[str, list[Sample]], t0: datetime, cloudwatch: bool
) -> str:
    lines = ["timestamp,service,metric,value"]
    for c in nodes:
        lat, err, req, unit = CLOUDWATCH[c.kind] if cloudwatch else ("latency", "availability", "requests", 1.0)
        for i, s in enumerate(samples[c.name]):
            ts = int((t0 + timedelta(seconds=STEP_S * i)).timestamp())
            count = s.requests * STEP_S
            lines.append(f"{ts},{c.name},{req},{count:.1f}")
            lines.append(f"{ts},{c.name},{lat},{s.latency_ms * unit:.6g}")
            if not cloudwatch:
                lines.append(f"{ts},{c.name},{err},{100 * (1 - s.failing):.6g}")
            elif failed := poisson(rng, count * s.failing):
                lines.append(f"{ts},{c.name},{err},{failed}")  # a period that counted none has no data point
    return "\n".join(lines) + "\n"


def poisson(rng: random.Random, mean: float, normal_above: float = 50.0) -> int:
    """A Poisson draw (Knuth's product of uniforms), the normal approximation above `normal_above`."""
    if mean > normal_above:
        return max(0, round(rng.gauss(mean, math.sqrt(mean))))
    limit, k, p = math.exp(-mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


# Per fault kind: the range of its magnitude, and the fault type truth.json names.
KINDS = {
    "latency": ((0.5, 4.0), "network_latency"),
    "errors": ((0.03, 0.4), "deploy_regression"),
    "ramp": ((1.0, 6.0), "memory_leak"),  # added latency at the end of the window, growing from the onset
    "surge": ((2.0, 5.0), "traffic_surge"),  # times the component's request rate
}


def write_bundle(
    out: Path, index: int, rng: random.Random, noise: Noise = Noise(), kinds: tuple[str, ...] = ("latency", "errors")
) -> Path:
    nodes = call_graph(rng)
    after = rng.randint(6, 12)
    steps = rng.randint(42, 84)
    candidates = [c for c in nodes if c.layer] if rng.random() < 0.9 else nodes
    kind = rng.choice(list(kinds))
    magnitude = rng.uniform(*KINDS[kind][0])
    fault = Fault(rng.choice(candidates).name, kind, magnitude, steps - after)
    shift = None
    if rng.random() < 0.3:
        other = rng.choice([c for c in nodes if c.name != fault.root]).name
        shift = (other, rng.randint(steps // 2, steps - 1), rng.uniform(1.5, 3))
    samples = simulate(rng, nodes, steps, fault, shift, noise)
    t0 = datetime(2026, 3, 1, tzinfo=UTC) + timedelta(days=index)
    at = lambda i: t0 + timedelta(seconds=STEP_S * i)  # noqa: E731
    stamp = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    read = (lambda s: s.failing) if kind == "errors" else (lambda s: s.latency_ms)
    # The alert fires on an entry the fault reaches (the one that sees it most), as a user's alert would.
    entries = [c.name for c in nodes if c.layer == 0 and fault.root in reached(nodes, c.name)]
    entries = entries or [c.name for c in nodes if c.layer == 0]
    entry = max(entries, key=lambda e: read(samples[e][-1]) / max(1e-9, read(samples[e][0])))
    fired = at(fault.onset) + timedelta(minutes=rng.choice([5, 10, 15]))
    if kind == "ramp":  # a growing delay crosses a threshold later: when half of it has built up
        fired = at(fault.onset + after // 2)
    alertname = "HighErrorRate" if kind == "errors" else "HighLatency"
    root = out / f"cloud-{index:03d}"
    root.mkdir(parents=True, exist_ok=True)
    (root / "metrics.csv").write_text(_metrics_csv(rng, nodes, samples, t0, cloudwatch=rng.random() < 0.5))
    alert = {
        "status": "firing",
        "labels": {"alertname": alertname, "service": entry, "severity": "critical"},
        "annotations": {"summary": f"{alertname} on {entry}"},
        "startsAt": stamp(fired),
    }
    (root / "alerts.json").write_text(json.dumps({"version": "4", "status": "firing", "alerts": [alert]}, indent=1))
    (root / "changes.json").write_text("[]\n")
    topology = ["entities:"]
    for c in nodes:
        topology += [f"  {c.name}:", "    kind: service"]
        topology += ["    depends_on:", *(f"    - {x}" for x in c.callees)] if c.callees else []
    (root / "topology.yaml").write_text("\n".join(topology) + "\n")
    (root / "incident.yaml").write_text(
        f"format: rootward-bundle/v1\nid: cloud-{index:03d}\ntitle: {alertname} on {entry}\n"
        f"fired_at: '{stamp(fired)}'\nwindow:\n  start: '{stamp(at(0))}'\n  end: '{stamp(at(steps - 1))}'\n"
    )
    fault_type = KINDS[kind][1]
    truth = {
        "root_cause": {"entity": fault.root, "fault_type": fault_type},
        "also_acceptable": [],
        "notes": f"{kind} x{magnitude:.2f} at {fault.root} from {stamp(at(fault.onset))}; traffic shift {shift}",
    }
    (root / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--noisy", action="store_true", help="4x the latency spread, 5%% lone spikes, noisier traffic")
    parser.add_argument("--kinds", default="latency,errors", help=f"fault kinds to draw from, of {','.join(KINDS)}")
    args = parser.parse_args()
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if not kinds or set(kinds) - set(KINDS):
        parser.error(f"--kinds takes a comma-separated subset of {', '.join(KINDS)}")
    rng = random.Random(args.seed)
    for index in range(args.count):
        write_bundle(args.out, index, rng, NOISY if args.noisy else Noise(), kinds)
    print(f"{args.count} bundles in {args.out}")


if __name__ == "__main__":
    main()
