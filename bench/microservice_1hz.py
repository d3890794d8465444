"""Fault injection on a microservice demo at 1-second samples, metrics only: a check written apart from the simulator.

    python -m bench.microservice_1hz OUT [--count 50] [--seed 11] [--no-topology] [--names canonical|raw] [--hard]

The simulator (`rootward.sim`) and the engine were written side by side, so a
method can fit the simulator's way of rendering a fault without anyone
noticing. This generator shares no code with either and renders incidents the
way a fault-injection benchmark on a Kubernetes demo application reports them
(as RCAEval's RE1 does): a load generator drives a web front, mid-tier
services and leaves, with one to three stateful backends (a database, a
cache) under them; one service's pod gets a stress-ng CPU or memory hog, a
disk I/O hog, a tc-netem delay or packet loss; cAdvisor reports each pod's
CPU and memory and the service mesh each service's p50 / p90 latency and
request rate, once a second. Backends are not behind the mesh: they have CPU
and memory but no latency or request rate of their own.

Every caller waits for what it calls, so the front's latency carries the sum
along the path and is loud in every fault. The load generator is closed-loop
(its users wait for their answers), so throughput falls when latency rises.
Per-second quantiles over a few requests are jumpy, p90 more than p50; CPU
has per-second noise and short GC / cron spikes, memory drifts under a GC
sawtooth. A third of the bundles get a load burst (every rate and CPU up
together for 30-90 s), a third an unrelated CPU spike or memory step before
the injection. The window is 10 minutes before the injection and 5 after;
one latency alert fires on the front 1-3 minutes after it. The fault is at a
service other than the front (the front in ~10 %), its kind dealt evenly:

    cpu   -> cpu_saturation   +0.5-2 cores (to the pod's limit), own work 1.5-4x slower
    mem   -> memory_leak      +200-1500 MB over the 5 minutes, latency within 10 %
    disk  -> disk_full        +0.05-0.3 cores of iowait, own work 1.2-2x slower (no disk metric)
    delay -> network_latency  +50-500 ms on every call into the pod; its CPU does not rise
    loss  -> packet_loss      5-50 % loss: retransmission timeouts (0.2-1 s) on a share of requests

`--hard` adds what real 1-second fault-injection data also has. The fault
may sit in a backend as well (drawn among services and backends alike): a
CPU or disk hog there shows in its CPU and in its callers' latency (its
queries slow 3-8x), a delay or loss only in its callers' latency, as they
wait on it. Each series loses ~1 % of its seconds, and 2-4 scrape gaps of
10-30 s take a whole pod's series out together. A third of the bundles get a CPU spike (0.3-1.5 cores, 20-90 s)
in a pod that neither calls nor is called by the faulty one, another third a
load burst (30-90 s), either starting within 60 s of the injection. Without
`--hard` a seed writes the same bytes as before the flag existed.

`--names raw` writes RCAEval's column names (`cpu`, `mem`, `latency-50`,
`latency-90`, `workload`) instead of the canonical ones.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bench.managed_cloud import poisson

BEFORE_S, AFTER_S = 600, 300
STEPS = BEFORE_S + AFTER_S
MB = 1 << 20
WORDS = "atlas basil cobalt delta ember fable garnet harbor iris jasper kestrel lumen marble nectar onyx pylon quartz"
BACKENDS = (("db", "database"), ("cache", "cache"), ("store", "database"))
METRICS = ("cpu", "mem", "p50", "p90", "rate")
NAMES = {
    "canonical": ("cpu_usage", "memory_bytes", "latency_p50_ms", "latency_p90_ms", "request_rate"),
    "raw": ("cpu", "mem", "latency-50", "latency-90", "workload"),  # RCAEval's columns
}
# Per fault kind: the fault type truth.json names, the size's range (cores, MB, ms or lost share) and the slowdown's.
KINDS = {
    "cpu": ("cpu_saturation", (0.5, 2.0), (1.5, 4.0)),
    "mem": ("memory_leak", (200.0, 1500.0), (1.0, 1.1)),
    "disk": ("disk_full", (0.05, 0.3), (1.2, 2.0)),
    "delay": ("network_latency", (50.0, 500.0), (1.0, 1.0)),
    "loss": ("packet_loss", (0.05, 0.5), (1.0, 1.0)),
}
# With --hard, a backend's slowdown under a CPU or disk hog: its queries are short and all CPU and disk work, so
# they queue behind the hog (CFS throttling, a shared I/O queue) far more than a service's own work slows.
BACKEND_SLOWDOWN = {"cpu": (3.0, 8.0), "disk": (3.0, 8.0)}


@dataclass
class Node:
    name: str
    layer: int  # 0 front, 1 mid tier, 2 leaves, 3 stateful backends
    kind: str  # service, database or cache
    callees: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Fault:
    root: str
    kind: str
    size: float  # cores (cpu, disk), MB (mem), ms (delay) or the share of packets lost (loss)
    slowdown: float  # of the pod's own work, at full strength
    onset: int = BEFORE_S


@dataclass(frozen=True)
class Nuisance:
    kind: str  # "burst" (the load generator, target ""), "cron" (a CPU spike) or "memstep"
    target: str
    start: int
    length: int
    size: float  # the load's rise as a share, cores or MB


def call_graph(rng: random.Random) -> list[Node]:
    """One front, mid-tier services, leaves and 1-3 backends; calls go one or more layers down, each node is called."""
    n, k_state = rng.randint(8, 14), rng.randint(1, 3)
    k_app = n - 1 - k_state
    k_mid = rng.randint(2, max(2, k_app - 2))
    words = rng.sample(WORDS.split(), n)
    nodes = [Node(f"{words[0]}-web", 0, "service")]
    nodes += [Node(f"{w}-{rng.choice(('svc', 'api', 'core'))}", 1, "service") for w in words[1 : 1 + k_mid]]
    nodes += [Node(f"{w}-{rng.choice(('svc', 'worker'))}", 2, "service") for w in words[1 + k_mid : 1 + k_app]]
    for w, (suffix, kind) in zip(words[1 + k_app :], rng.sample(BACKENDS, k_state), strict=True):
        nodes.append(Node(f"{w}-{suffix}", 3, kind))
    layer = {d: [x.name for x in nodes if x.layer == d] for d in range(4)}
    front = nodes[0]
    front.callees = rng.sample(layer[1], rng.randint(2, min(4, k_mid)))
    if rng.random() < 0.5:
        front.callees.append(rng.choice(layer[2]))
    for node in nodes[1:]:
        if node.layer == 1:
            node.callees = rng.sample(layer[2] + layer[3], rng.randint(1, 3))
        elif node.layer == 2 and rng.random() < 0.4:
            node.callees = [rng.choice(layer[3])]
    for node in nodes[1:]:
        if not any(node.name in m.callees for m in nodes):
            callers = [m for m in nodes if 0 < m.layer < node.layer] if node.layer > 1 else [front]
            rng.choice(callers).callees.append(node.name)
    for node in nodes:
        node.callees.sort()
    return nodes


def simulate(
    rng: random.Random, nodes: list[Node], fault: Fault, nuisances: list[Nuisance]
) -> dict[str, dict[str, list[float | None]]]:
    """Per node and metric (`METRICS`), one value a second; None where a second saw no request to measure."""
    names = [x.name for x in nodes]
    by_name = {x.name: x for x in nodes}
    top_down = sorted(nodes, key=lambda x: x.layer)
    edge = {(c.name, x): (rng.uniform(0.3, 1.0), rng.choice([1, 1, 1, 2])) for c in nodes for x in c.callees}
    own50 = {x: rng.uniform(0.5, 4) if by_name[x].layer == 3 else rng.uniform(1, 30) for x in names}
    tail = {x: rng.uniform(1.5, 3.0) for x in names}
    base_cpu = {x: rng.uniform(0.02, 0.6) for x in names}
    idle = {x: base_cpu[x] * rng.uniform(0.2, 0.5) for x in names}
    cpu_sigma = {x: rng.uniform(0.1, 0.35) for x in names}
    limit = {x: max(rng.choice([1.0, 2.0, 4.0]), base_cpu[x] + 0.5) for x in names}
    mem_base = {x: rng.uniform(50, 800) * MB for x in names}
    saw = {x: (rng.uniform(0.02, 0.1) * mem_base[x], rng.randint(30, 120), rng.randrange(120)) for x in names}
    front_rate, think_s = rng.uniform(15, 60), rng.uniform(0.5, 2.0)
    base_rate = {x: 0.0 for x in names}
    base_rate[names[0]] = front_rate
    for c in top_down:
        for x in c.callees:
            share, calls = edge[(c.name, x)]
            base_rate[x] += base_rate[c.name] * share * calls
    per_request = {x: (base_cpu[x] - idle[x]) / base_rate[x] for x in names}
    users = front_rate * (think_s + 0.1)
    phase, period, wander = rng.uniform(0, 2 * math.pi), rng.uniform(300, 900), 0.0
    drift, spike_left = dict.fromkeys(names, 0.0), dict.fromkeys(names, 0)
    respond_s = 0.1
    out: dict[str, dict[str, list[float | None]]] = {x: {m: [] for m in METRICS} for x in names}
    for i in range(STEPS):
        t = i - fault.onset
        strength = 0.0 if t < 0 else min(1.0, (t + 1) / 3)  # stress-ng and tc take hold within seconds
        wander = 0.995 * wander + rng.gauss(0, 0.006)
        load = 1 + 0.1 * math.sin(2 * math.pi * i / period + phase) + wander
        for nz in nuisances:
            if nz.kind == "burst" and nz.start <= i < nz.start + nz.length:
                load *= 1 + nz.size * min(1.0, (i - nz.start + 1) / 5, (nz.start + nz.length - i) / 5)
        # A closed loop: the generator's users wait for the front's last answer before they think and ask again.
        rate = dict.fromkeys(names, 0.0)
        rate[names[0]] = users * max(0.2, load) / (think_s + respond_s)
        for c in top_down:
            for x in c.callees:
                share, calls = edge[(c.name, x)]
                rate[x] += rate[c.name] * share * calls
        count = {x: poisson(rng, rate[x], normal_above=40.0) for x in names}
        for x in names:  # GC pauses and cron ticks: a few seconds of extra CPU, slower work
            spike_left[x] = spike_left[x] - 1 if spike_left[x] else (rng.randint(2, 6) if rng.random() < 0.004 else 0)
        lat50: dict[str, float] = {}
        lat90: dict[str, float] = {}
        for c in reversed(top_down):
            x = c.name
            slow = (rate[x] / base_rate[x]) ** 0.3 * (1.3 if spike_left[x] else 1.0)
            if x == fault.root:
                slow *= 1 + (fault.slowdown - 1) * strength * (t / AFTER_S if fault.kind == "mem" else 1)
            work = own50[x] * slow * rng.lognormvariate(0, 0.04)
            waits = [edge[(x, y)][0] * edge[(x, y)][1] for y in c.callees]
            lat50[x] = work + sum(w * lat50[y] for w, y in zip(waits, c.callees, strict=True))
            lat90[x] = work * tail[x] * rng.lognormvariate(0, 0.06)
            lat90[x] += sum(w * lat90[y] for w, y in zip(waits, c.callees, strict=True))
            if x == fault.root and strength and fault.kind == "delay":
                lat50[x] += fault.size * rng.uniform(0.95, 1.05)
                lat90[x] += fault.size * rng.uniform(1.0, 1.15)
            if x == fault.root and strength and fault.kind == "loss":
                n = max(1, count[x])
                hit = sum(rng.random() < fault.size for _ in range(n)) / n
                rto = rng.uniform(200, 1000) * (2 if rng.random() < fault.size else 1)  # a second retransmission
                lat90[x] += rto if hit >= 0.1 else 0.0
                lat50[x] += rto if hit >= 0.5 else lat50[x] * hit  # the median shifts a little
        respond_s = (0.7 * lat50[names[0]] + 0.3 * lat90[names[0]]) / 1000
        for c in nodes:
            x = c.name
            cpu = (idle[x] + per_request[x] * rate[x]) * rng.lognormvariate(0, cpu_sigma[x])
            cpu += base_cpu[x] * rng.uniform(0.5, 1.5) if spike_left[x] else 0.0
            if x == fault.root and fault.kind in ("cpu", "disk"):
                cpu += fault.size * strength * rng.uniform(0.9, 1.05)
            drift[x] = 0.998 * drift[x] + rng.gauss(0, 0.002 * mem_base[x])
            amp, every, offset = saw[x]
            mem = mem_base[x] + drift[x] + amp * ((i + offset) % every) / every
            if x == fault.root and fault.kind == "mem" and t >= 0:
                mem += fault.size * MB * (t + 1) / AFTER_S * rng.uniform(0.98, 1.02)
            for nz in nuisances:
                if nz.target == x and nz.kind == "cron" and nz.start <= i < nz.start + nz.length:
                    cpu += nz.size * rng.uniform(0.85, 1.1)
                if nz.target == x and nz.kind == "memstep" and i >= nz.start:
                    mem += nz.size * MB
            out[x]["cpu"].append(min(limit[x], cpu))
            out[x]["mem"].append(mem)
            if c.layer == 3:  # not behind the mesh: no latency, no request count
                continue
            n = count[x]
            # A quantile of the few requests in one second: p90 much jumpier than p50, nothing when none came.
            p50 = lat50[x] * rng.lognormvariate(0, 0.04 + 0.3 / math.sqrt(n + 1)) if n else None
            p90 = lat90[x] * rng.lognormvariate(0, 0.1 + 0.8 / math.sqrt(n + 1)) if n else None
            if p90 is not None and rng.random() < 0.02:
                p90 *= rng.uniform(1.5, 4)  # one slow request of few
            out[x]["p50"].append(p50)
            out[x]["p90"].append(None if p50 is None or p90 is None else max(p90, 1.05 * p50))
            out[x]["rate"].append(float(n))
    return out


def draw_fault(rng: random.Random, nodes: list[Node], kind: str, hard: bool = False) -> Fault:
    """The faulty pod: the front in ~10 %, else a mid-tier or leaf service (with `hard`, a backend as likely)."""
    services = [x.name for x in nodes if x.layer in ((1, 2, 3) if hard else (1, 2))]
    root = nodes[0].name if rng.random() < 0.1 else rng.choice(services)
    _, size, slowdown = KINDS[kind]
    if hard and next(x for x in nodes if x.name == root).layer == 3:
        slowdown = BACKEND_SLOWDOWN.get(kind, slowdown)
    return Fault(root, kind, rng.uniform(*size), rng.uniform(*slowdown))


def draw_nuisances(rng: random.Random, nodes: list[Node], root: str) -> list[Nuisance]:
    out = []
    if rng.random() < 1 / 3:
        out.append(Nuisance("burst", "", rng.randint(30, STEPS - 120), rng.randint(30, 90), rng.uniform(0.2, 0.6)))
    if rng.random() < 1 / 3:
        other = rng.choice([x.name for x in nodes[1:] if x.name != root])
        if rng.random() < 0.5:
            out.append(
                Nuisance("cron", other, rng.randint(60, BEFORE_S - 150), rng.randint(20, 120), rng.uniform(0.3, 1.5))
            )
        else:
            out.append(Nuisance("memstep", other, rng.randint(60, BEFORE_S - 30), 0, rng.uniform(100, 600)))
    return out


def draw_near_nuisance(rng: random.Random, nodes: list[Node], fault: Fault) -> list[Nuisance]:
    """For `--hard`: a third of the time a CPU spike in an unrelated pod, a third a load burst, near the injection.

    Unrelated: neither the faulty pod nor one it calls or is called by (nor the
    front, which calls everything). Either starts within 60 s of the injection.
    """
    draw, start = rng.random(), fault.onset + rng.randint(-60, 60)
    if draw < 1 / 3:
        related = {fault.root, *next(x.callees for x in nodes if x.name == fault.root)}
        related |= {x.name for x in nodes if fault.root in x.callees}
        others = [x.name for x in nodes[1:] if x.name not in related]
        if others:
            return [Nuisance("cron", rng.choice(others), start, rng.randint(20, 90), rng.uniform(0.3, 1.5))]
    elif draw < 2 / 3:
        return [Nuisance("burst", "", start, rng.randint(30, 90), rng.uniform(0.2, 0.6))]
    return []


def drop_samples(
    rng: random.Random, nodes: list[Node], series: dict[str, dict[str, list[float | None]]]
) -> list[tuple[str, int, int]]:
    """For `--hard`: ~1 % of each series' seconds lost at random, and 2-4 scrape gaps of 10-30 s.

    A scrape gap takes every series of one pod out together. Changes `series`
    in place and returns the gaps as (pod, first step, length).
    """
    for node in nodes:
        for values in series[node.name].values():
            for i in range(len(values)):
                if rng.random() < 0.01:
                    values[i] = None
    gaps = []
    for _ in range(rng.randint(2, 4)):
        pod, length = rng.choice(nodes).name, rng.randint(10, 30)
        start = rng.randrange(STEPS - length)
        for values in series[pod].values():
            for i in range(start, min(len(values), start + length)):
                values[i] = None
        gaps.append((pod, start, length))
    return gaps


def _metrics_csv(nodes: list[Node], series: dict[str, dict[str, list[float | None]]], t0: int, names: str) -> str:
    label = dict(zip(METRICS, NAMES[names], strict=True))
    digits = {"cpu": ".4f", "mem": ".0f", "p50": ".3f", "p90": ".3f", "rate": ".0f"}
    lines = ["timestamp,service,metric,value"]
    for i in range(STEPS):
        for c in sorted(nodes, key=lambda x: x.name):
            for m in METRICS:
                values = series[c.name][m]
                if values and (v := values[i]) is not None:
                    lines.append(f"{t0 + i},{c.name},{label[m]},{v:{digits[m]}}")
    return "\n".join(lines) + "\n"


def _hard_notes(
    nodes: list[Node], fault: Fault, near: list[Nuisance], gaps: list[tuple[str, int, int]], t0: int
) -> str:
    """What `--hard` added, for truth.json's notes: the target's type, the nuisance near the injection, the gaps."""
    target = "backend" if next(x for x in nodes if x.name == fault.root).layer == 3 else "app"
    spans = (f"{n.kind} {n.target or 'load'} +{n.size:.2f} {n.start - fault.onset:+d}s for {n.length}s" for n in near)
    holes = (f"{pod} @{_stamp(t0 + start)} for {length}s" for pod, start, length in gaps)
    return (
        f"; hard: {target} target; near the injection: {', '.join(spans) or 'none'};"
        f" ~1 % of seconds dropped per series; scrape gaps: {', '.join(holes)}"
    )


def _stamp(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _mean(values: list[float | None]) -> float:
    seen = [v for v in values if v is not None]
    return sum(seen) / max(1, len(seen))


def write_bundle(
    out: Path, seed: int, index: int, kind: str, names: str = "canonical", topology: bool = True, hard: bool = False
) -> Path:
    """One bundle directory under `out`, named for the seed, index and fault kind; returns its path."""
    rng = random.Random(f"ms1hz-{seed}-{index}")  # each bundle its own stream: the same whatever --count is
    nodes = call_graph(rng)
    fault = draw_fault(rng, nodes, kind, hard)
    nuisances = draw_nuisances(rng, nodes, fault.root)
    near = draw_near_nuisance(rng, nodes, fault) if hard else []
    series = simulate(rng, nodes, fault, nuisances + near)
    gaps = drop_samples(rng, nodes, series) if hard else []
    t0 = int(datetime(2026, 4, 1, tzinfo=UTC).timestamp()) + index * 7919 + rng.randrange(3600)
    onset = t0 + fault.onset
    fired_i = fault.onset + rng.randint(60, 180)
    front = nodes[0].name
    p90 = series[front]["p90"]
    was, now = _mean(p90[: fault.onset]), _mean(p90[fired_i - 60 : fired_i])
    name = f"ms1hz-{seed}-{index:03d}-{kind}"
    root = out / name
    root.mkdir(parents=True, exist_ok=True)
    (root / "metrics.csv").write_text(_metrics_csv(nodes, series, t0, names))
    labels = {"alertname": "HighLatencyP90", "service": front, "severity": "critical", "namespace": "demo"}
    notes = {"summary": f"HighLatencyP90 on {front}", "description": f"p90 latency {now:.0f} ms (was {was:.0f} ms)"}
    alert = {
        "status": "firing",
        "labels": labels,
        "annotations": notes,
        "startsAt": _stamp(t0 + fired_i),
        "endsAt": "0001-01-01T00:00:00Z",
        "generatorURL": "http://prometheus:9090/graph?g0.expr=HighLatencyP90",
        "fingerprint": f"{rng.getrandbits(64):016x}",
    }
    payload = {
        "version": "4",
        "groupKey": '{}:{alertname="HighLatencyP90"}',
        "truncatedAlerts": 0,
        "status": "firing",
        "receiver": "rootward",
        "groupLabels": {"alertname": "HighLatencyP90"},
        "commonLabels": labels,
        "commonAnnotations": notes,
        "externalURL": "http://alertmanager:9093",
        "alerts": [alert],
    }
    (root / "alerts.json").write_text(json.dumps(payload, indent=1) + "\n")
    (root / "changes.json").write_text("[]\n")
    if topology:
        lines = ["entities:"]
        for c in sorted(nodes, key=lambda x: x.name):
            lines += [f"  {c.name}:", f"    kind: {c.kind}"]
            lines += ["    depends_on:", *(f"    - {x}" for x in c.callees)] if c.callees else []
        (root / "topology.yaml").write_text("\n".join(lines) + "\n")
    (root / "incident.yaml").write_text(
        f"format: rootward-bundle/v1\nid: {name}\ntitle: HighLatencyP90 on {front}\n"
        f"fired_at: '{_stamp(t0 + fired_i)}'\nwindow:\n  start: '{_stamp(t0)}'\n  end: '{_stamp(t0 + STEPS - 1)}'\n"
    )
    nuisance_text = "; ".join(f"{n.kind} {n.target or 'load'} +{n.size:.2f} @{_stamp(t0 + n.start)}" for n in nuisances)
    truth = {
        "root_cause": {"entity": fault.root, "fault_type": KINDS[kind][0]},
        "also_acceptable": [],
        "notes": f"{kind} injected into the {fault.root} pod at {_stamp(onset)} (epoch {onset}), size "
        f"{fault.size:.3g}, own work x{fault.slowdown:.2f}; nuisances: {nuisance_text or 'none'}"
        + (_hard_notes(nodes, fault, near, gaps, t0) if hard else ""),
    }
    (root / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--no-topology", action="store_true", help="write no topology.yaml")
    parser.add_argument("--names", choices=sorted(NAMES), default="canonical", help="metric names to write")
    parser.add_argument("--hard", action="store_true", help="backend faults, missing seconds, nuisances near the fault")
    args = parser.parse_args()
    deck = [k for _ in range(-(-args.count // len(KINDS))) for k in KINDS]
    random.Random(args.seed).shuffle(deck)  # kinds dealt evenly, in an order of the seed's
    for index in range(args.count):
        write_bundle(args.out, args.seed, index, deck[index], args.names, not args.no_topology, args.hard)
    print(f"{args.count} bundles in {args.out}")


if __name__ == "__main__":
    main()
