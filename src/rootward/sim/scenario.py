"""One simulated incident, decided: cause, timing, victims, alerts, changes and noise.

`build_scenario` makes every random choice of an incident from one
`random.Random`, in a fixed order, so a seed always yields the same incident.
Rendering to files is `sim/render.py`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime

from rootward.domain.faults import FAULT_TYPES
from rootward.sim import logtext
from rootward.sim.faults import (
    FAULTS,
    SIGNATURES,
    FaultContext,
    FaultPlan,
    LogEvent,
    eligible_entities,
    host_of,
)
from rootward.sim.signals import Baseline, draw_baseline, family_metrics, ramp_to, step
from rootward.sim.topologies import SimEntity, SimTopology

SOURCE_FILES = ("logs.jsonl", "metrics.csv", "changes.json")
_TELEMETRY_FAMILIES = ("service", "database", "cache", "queue", "dns", "storage")
_FLAKY_ALERTS = (
    ("NodeClockSkewDetected", "warning"),
    ("KubeJobFailed", "warning"),
    ("BlackboxProbeSlow", "warning"),
    ("HighMemoryUsage", "warning"),
    ("CertificateExpiringIn14Days", "info"),
    ("KubeHpaMaxedOut", "warning"),
)


@dataclass(frozen=True)
class Victim:
    """An entity the fault reaches: `hops` away, through `via` (its neighbour towards the cause)."""

    name: str
    hops: int
    via: str
    relation: str  # depends_on | runs_on | load (traffic flowing down)
    starts: int  # when its symptoms begin
    strength: float


@dataclass(frozen=True)
class AlertSpec:
    name: str
    entity: str
    severity: str
    starts_at: int
    summary: str
    ends_at: int | None = None  # set when the alert resolved inside the window (a flaky monitor)


@dataclass(frozen=True)
class Sampling:
    """How the metrics are sampled, when not drawn: seconds between samples, at most this much data before the onset.

    Real metrics-only data comes at one sample a second over short windows, and a disk
    that fills for hours shows only the end of its climb in them (`bench` uses both).
    """

    step_s: int | None = None
    lead_s: int | None = None


@dataclass(frozen=True)
class PreviousFault:
    """A fault that came and went before the incident, in the same session (`sim/previous_faults.py`).

    Back-to-back fault-injection runs leave the previous run's fault in an
    incident's window: its cause's series, its victims, its lines and its spans
    bent from `onset` until `end`, then back to normal.
    """

    cause: SimEntity
    fault_type: str
    onset: int
    end: int
    plan: FaultPlan
    victims: dict[str, Victim]


@dataclass
class Scenario:
    id: str
    topology: SimTopology
    fault_type: str
    cause: SimEntity
    onset: int
    window_start: int
    window_end: int
    resolution: int
    plan: FaultPlan
    victims: dict[str, Victim]
    baselines: dict[tuple[str, str], Baseline]
    alerts: list[AlertSpec] = field(default_factory=list)
    changes: list[dict[str, str | int]] = field(default_factory=list)
    extra_logs: list[LogEvent] = field(default_factory=list)
    noisy_service: str | None = None
    missing: tuple[str, ...] = ()
    knowledge: dict[str, str] = field(default_factory=dict)
    also_acceptable: list[tuple[str, str]] = field(default_factory=list)
    kubernetes: bool = False
    distractors: list[str] = field(default_factory=list)  # "entity/metric" anomalies unrelated to the fault
    previous: list[PreviousFault] = field(default_factory=list)  # earlier faults of the same session, over by onset

    @property
    def fired_at(self) -> int:
        return min(a.starts_at for a in self.alerts)


def has_pool(topo: SimTopology, e: SimEntity) -> bool:
    return e.family == "service" and any(topo.get(d).family == "database" for d in e.depends_on)


def _baselines(topo: SimTopology, rng: random.Random) -> dict[tuple[str, str], Baseline]:
    out: dict[tuple[str, str], Baseline] = {}
    for e in topo.entities:
        for m in family_metrics(e.family, has_pool(topo, e)):
            out[(e.name, m)] = draw_baseline(e.family, m, rng)
    return out


_THROUGHPUT_FAULTS = frozenset(
    {
        "crash_loop", "oom_kill", "dependency_down", "cpu_saturation", "memory_leak", "deploy_regression",
        "config_error", "connection_pool_exhaustion",
    }
)  # fmt: skip


def _consumer_lag(
    topo: SimTopology,
    cause: SimEntity,
    plan: FaultPlan,
    baselines: dict[tuple[str, str], Baseline],
    onset: int,
    window_end: int,
    rng: random.Random,
) -> None:
    """A consumer that stops keeping up leaves a growing backlog on the queue it reads: a delayed effect."""
    if plan.fault_type not in _THROUGHPUT_FAULTS or cause.attributes.get("role") != "consumer":
        return
    for q in cause.depends_on:
        base = baselines.get((q, "queue_depth"))
        if base is None:
            continue
        plan.other_shapes.setdefault(
            (q, "queue_depth"), ramp_to(onset + rng.randint(30, 120), window_end, base.level * rng.uniform(8, 30))
        )
        if plan.fault_type in ("crash_loop", "oom_kill", "dependency_down"):
            queue = topo.get(q)
            msg = (
                f"[GroupCoordinator 1]: Member consumer-{cause.name}-1-{rng.getrandbits(32):08x} in group {cause.name} "
                "has failed, removing it from the group"
                if queue.software == "kafka"
                else f"Client {cause.name}-{rng.getrandbits(16):04x} has exceeded timeout, disconnecting."
            )
            plan.logs.append(LogEvent(round(onset + rng.uniform(20, 90), 3), q, "INFO", msg, host_of(queue)))


def victims_of(topo: SimTopology, cause: SimEntity, plan: FaultPlan, rng: random.Random) -> dict[str, Victim]:
    """Walk the graph from the cause, delaying each hop: symptoms arrive later the further away."""
    out: dict[str, Victim] = {}
    frontier = [(cause.name, plan.start if plan.propagation == "down" else 0)]
    onset_at = {cause.name: 0}
    depth = 0
    while frontier and depth < 4:
        depth += 1
        nxt = []
        for node, _ in frontier:
            if plan.propagation == "down":
                neigh = [(d, "load") for d in topo.get(node).depends_on]
            else:
                neigh = [
                    (d.name, "runs_on" if node in d.runs_on else "depends_on")
                    for d in topo.entities
                    if node in d.dependencies
                ]
            for name, rel in neigh:
                if name in out or name == cause.name:
                    continue
                delay = onset_at[node] + rng.randint(20, 150)
                onset_at[name] = delay
                strength = min(1.0, plan.victim_strength * (0.7 ** (depth - 1)) * rng.uniform(0.8, 1.2))
                out[name] = Victim(name, depth, node, rel, delay, round(strength, 4))
                nxt.append((name, delay))
        frontier = nxt
    return out


def _iso(epoch: float) -> str:
    ms = int(round(epoch * 1000))
    return datetime.fromtimestamp(ms // 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _alerts(sc: Scenario, rng: random.Random) -> list[AlertSpec]:
    topo, plan = sc.topology, sc.plan
    alerts: list[AlertSpec] = []
    latest = sc.window_end - 240
    for name, v in sorted(sc.victims.items(), key=lambda kv: (kv[1].hops, kv[0])):
        ent = topo.get(name)
        if ent.family not in _TELEMETRY_FAMILIES:
            continue
        top = not topo.dependents(name)
        if rng.random() >= (0.85 if top else 0.3) * min(1.0, 0.5 + v.strength):
            continue
        mode = "latency" if plan.victim_mode == "latency" or v.relation in ("runs_on", "load") else "errors"
        alertname = "HighLatencyP99" if mode == "latency" else "HighErrorRate"
        at = min(latest, sc.onset + v.starts + rng.randint(60, 240))
        alerts.append(AlertSpec(alertname, name, "critical" if top else "warning", at, f"{alertname} on {name}"))
    if plan.alert and rng.random() < plan.alert_prob:
        alertname, severity = plan.alert
        at = max(sc.window_start + 600, min(latest, plan.alert_at))
        alerts.append(AlertSpec(alertname, sc.cause.name, severity, at, f"{alertname} on {sc.cause.name}"))
    if not alerts:
        pool = [v for v in sc.victims.values() if topo.get(v.name).family in _TELEMETRY_FAMILIES]
        if pool:
            v = max(pool, key=lambda x: (x.hops, x.name))
            alertname = "HighLatencyP99" if plan.victim_mode == "latency" else "HighErrorRate"
            at = min(latest, sc.onset + v.starts + rng.randint(60, 240))
            alerts.append(AlertSpec(alertname, v.name, "critical", at, f"{alertname} on {v.name}"))
        else:
            alertname, severity = plan.alert or ("ServiceDegraded", "critical")
            alerts.append(
                AlertSpec(
                    alertname, sc.cause.name, severity, min(latest, sc.onset + 120), f"{alertname} on {sc.cause.name}"
                )
            )
    if rng.random() < 0.35:
        others = [e.name for e in topo.entities if e.name != sc.cause.name and e.family != "external"]
        name = rng.choice(others)
        alertname, severity = rng.choice(_FLAKY_ALERTS)
        at = rng.randint(sc.onset - 600, latest)
        ends = at + rng.randint(120, 600) if rng.random() < 0.5 and at + 720 < sc.window_end else None
        alerts.append(AlertSpec(alertname, name, severity, at, f"{alertname} on {name}", ends))
    return sorted(alerts, key=lambda a: (a.starts_at, a.entity, a.name))


_DEPLOY_SUMMARIES = (
    ("bump dependencies", ""),
    ("upgrade base image and JVM flags", "- FROM base:1.8\n+ FROM base:1.9"),
    ("add structured logging fields", ""),
    ("increase HPA maxReplicas", "- maxReplicas: 6\n+ maxReplicas: 10"),
    ("fix typo in email template", ""),
    ("rotate TLS ciphers list", "- ssl_ciphers: HIGH:!aNULL\n+ ssl_ciphers: ECDHE+AESGCM"),
)


def _changes(sc: Scenario, rng: random.Random) -> list[dict[str, str | int]]:
    topo = sc.topology
    changes: list[dict[str, str | int]] = [dict(c) for c in sc.plan.changes]
    used = {str(c["id"]) for c in changes}

    def new_id(prefix: str) -> str:
        while True:
            cid = f"{prefix}-{rng.randint(1000, 9999)}"
            if cid not in used:
                used.add(cid)
                return cid

    services = [e.name for e in topo.entities if e.family == "service" and e.name != sc.cause.name]
    for _ in range(rng.randint(1, 3)):
        if not services:
            break
        summary, diff = rng.choice(_DEPLOY_SUMMARIES)
        changes.append(
            {
                "id": new_id("deploy"),
                "kind": "deploy",
                "service": rng.choice(services),
                "time": rng.randint(sc.window_start + 120, sc.window_end - 300),
                "version": f"v{rng.randint(1, 5)}.{rng.randint(0, 40)}.{rng.randint(0, 9)}",
                "author": rng.choice(("ci", "bob", "dana", "renovate[bot]")),
                "summary": summary,
                "diff": diff,
            }
        )
    if services and rng.random() < 0.4:
        # A red herring: a harmless deploy right before the onset, often on a service that then alerts.
        near = [v for v in sc.victims if v in services] or services
        summary, diff = rng.choice(_DEPLOY_SUMMARIES)
        changes.append(
            {
                "id": new_id("deploy"),
                "kind": "deploy",
                "service": rng.choice(near),
                "time": sc.onset - rng.randint(30, 300),
                "version": f"v{rng.randint(1, 5)}.{rng.randint(0, 40)}.0",
                "author": "ci",
                "summary": summary,
                "diff": diff,
            }
        )
    hosts = [e.name for e in topo.entities if e.family == "host"]
    if hosts and rng.random() < 0.25:
        changes.append(
            {
                "id": new_id("infra"),
                "kind": "infra",
                "service": rng.choice(hosts),
                "time": rng.randint(sc.window_start + 60, sc.window_end - 600),
                "version": "",
                "author": "terraform",
                "summary": "apply security patches (unattended-upgrades)",
                "diff": "",
            }
        )
    return sorted(changes, key=lambda c: (int(c["time"]), str(c["id"])))


def _noise_logs(sc: Scenario, rng: random.Random) -> list[LogEvent]:
    topo = sc.topology
    out: list[LogEvent] = []
    services = [e for e in topo.entities if e.family == "service"]
    if sc.noisy_service:
        ent = topo.get(sc.noisy_service)
        t = sc.window_start + rng.uniform(0, 30)
        while t < sc.window_end:
            level, msg = logtext.noisy_line(rng)
            out.append(LogEvent(round(t, 3), ent.name, level, msg, host_of(ent)))
            t += rng.uniform(5, 45)
    t = sc.window_start + rng.uniform(0, 200)
    while t < sc.window_end and services:
        ent = rng.choice(services)
        level, msg = logtext.pii_line(rng)
        out.append(LogEvent(round(t, 3), ent.name, level, msg, host_of(ent)))
        t += rng.uniform(60, 420)
    if rng.random() < 0.15 and services:
        decoys = [e.name for e in topo.entities if e.name != sc.cause.name and e.family != "external"]
        decoy = rng.choice(decoys)
        fault = rng.choice([f for f in FAULT_TYPES if f != sc.fault_type])
        ent = rng.choice(services)
        at = rng.uniform(sc.onset - 600, sc.window_end - 60)
        out.append(LogEvent(round(at, 3), ent.name, "INFO", logtext.adversarial_line(decoy, fault), host_of(ent)))
    return out


_DISTRACTION_REASONS = {
    "cpu_usage": ("INFO", "CRON[{pid}]: (root) CMD (/usr/local/bin/reindex-search.sh --full)"),
    "memory_bytes": ("INFO", "cache warm-up started: preloading {n} keys"),
    "latency_p99_ms": ("WARN", "slow request: handler took {ms}ms (threshold 500ms) path=/api/v1/export"),
    "request_rate": ("INFO", "synthetic load test started by k6 run id={n}"),
}


def _distractor(sc: Scenario, rng: random.Random) -> list[str]:
    """Now and then an unrelated, harmless anomaly near the onset: something a hurried reader blames.

    It never touches the metrics that carry the fault's own signature, so the cause still
    stands out where a senior SRE would look.
    """
    if rng.random() >= 0.3:
        return []
    signature = set(SIGNATURES[sc.fault_type][0])
    options = []
    for e in sc.topology.entities:
        if e.name == sc.cause.name or e.name in sc.victims or e.family not in ("service", "database", "cache", "host"):
            continue
        for metric in _DISTRACTION_REASONS:
            if (e.name, metric) in sc.baselines and metric not in signature:
                options.append((e, metric))
    if not options:
        return []
    ent, metric = rng.choice(options)
    start = sc.onset + rng.randint(-600, 300)
    end = start + rng.randint(300, 1200)
    sc.plan.other_shapes[(ent.name, metric)] = step(start, rng.uniform(2.0, 3.5), rise_s=60, end=end)
    level, text = _DISTRACTION_REASONS[metric]
    message = text.format(pid=rng.randint(1000, 30000), n=rng.randint(10000, 900000), ms=rng.randint(1500, 6000))
    sc.extra_logs.append(LogEvent(round(start + rng.uniform(0, 30), 3), ent.name, level, message, host_of(ent)))
    return [f"{ent.name}/{metric}"]


def _rollout_logs(sc: Scenario, rng: random.Random) -> list[LogEvent]:
    """Every deploy restarts the service, so its startup line is no clue by itself."""
    out = []
    causal = {str(c["id"]) for c in sc.plan.changes}
    for c in sc.changes:
        if c["kind"] != "deploy" or str(c["id"]) in causal:
            continue
        ent = sc.topology.get(str(c["service"]))
        at = int(c["time"]) + rng.uniform(20, 60)
        previous = f"v{rng.randint(1, 5)}.{rng.randint(0, 40)}.{rng.randint(0, 9)}"
        msg = f"Started {ent.name} {c['version']} (previous {previous}) in {rng.uniform(4, 20):.1f} seconds"
        out.append(LogEvent(round(at, 3), ent.name, "INFO", msg, host_of(ent)))
    return out


def _missing(sc: Scenario, rng: random.Random) -> tuple[str, ...]:
    """Drop one source now and then, but never the only one that holds the cause's signature."""
    if rng.random() >= 0.15:
        return ()
    droppable = []
    cause_has_telemetry = sc.cause.family != "external"
    if cause_has_telemetry and sc.plan.shapes:
        droppable.append("logs.jsonl")
    if sc.plan.logs or sc.plan.caller_message is not None:
        droppable.append("metrics.csv")
    if not sc.plan.changes:
        droppable.append("changes.json")
    return (rng.choice(droppable),) if droppable else ()


def fault_context(sc: Scenario, cause: SimEntity, onset: int, rng: random.Random) -> FaultContext:
    """The context to plan another fault of `sc`'s session at `cause` from `onset` (same window, same baselines)."""

    def baseline(metric: str) -> Baseline:
        return sc.baselines.get((cause.name, metric)) or draw_baseline(cause.family, metric, rng)

    return FaultContext(
        topo=sc.topology, cause=cause, onset=onset, window_start=sc.window_start, window_end=sc.window_end,
        rng=rng, baseline=baseline, baseline_of=lambda entity, m: sc.baselines.get((entity, m)),
    )  # fmt: skip


def build_scenario(
    topo: SimTopology,
    fault_type: str,
    rng: random.Random,
    bundle_id: str,
    cause_name: str | None = None,
    sampling: Sampling | None = None,
) -> Scenario:
    """Every random choice of one incident; `sampling` overrides the metric step and the lead drawn.

    The draws are made either way, so a seed gives the same incident with or without an override.
    """
    if fault_type not in FAULTS:
        raise ValueError(f"unknown fault type {fault_type!r}; known: {', '.join(FAULTS)}")
    candidates = eligible_entities(topo, fault_type)
    if cause_name is not None:
        candidates = [e for e in candidates if e.name == cause_name]
    if not candidates:
        raise ValueError(f"topology {topo.name!r} has no entity where {fault_type} can happen")
    cause = rng.choice(candidates)
    resolution = rng.choice((30, 60))
    day = datetime(2026, 1, 5, tzinfo=UTC).timestamp() + rng.randint(0, 300) * 86400
    onset = int(day) + rng.randint(0, 23) * 3600 + rng.randint(0, 59) * 60 + rng.choice((0, 15, 30, 45))
    window_start = onset - rng.randint(45, 70) * 60
    if sampling is not None:
        resolution = sampling.step_s or resolution
        window_start = max(window_start, onset - sampling.lead_s) if sampling.lead_s else window_start
    window_start -= window_start % resolution
    window_end = onset + rng.randint(18, 30) * 60
    window_end -= window_end % resolution
    baselines = _baselines(topo, rng)
    ctx = FaultContext(
        topo=topo,
        cause=cause,
        onset=onset,
        window_start=window_start,
        window_end=window_end,
        rng=rng,
        baseline=lambda m: baselines.get((cause.name, m)) or draw_baseline(cause.family, m, rng),
        baseline_of=lambda entity, m: baselines.get((entity, m)),
    )
    plan = FAULTS[fault_type](ctx)
    if not plan.start:
        plan.start = onset
    _consumer_lag(topo, cause, plan, baselines, onset, window_end, rng)
    victims = victims_of(topo, cause, plan, rng)
    sc = Scenario(
        id=bundle_id,
        topology=topo,
        fault_type=fault_type,
        cause=cause,
        onset=onset,
        window_start=window_start,
        window_end=window_end,
        resolution=resolution,
        plan=plan,
        victims=victims,
        baselines=baselines,
        also_acceptable=list(plan.also_acceptable),
        kubernetes=topo.name == "shop",
    )
    sc.alerts = _alerts(sc, rng)
    sc.changes = _changes(sc, rng)
    noisy = [e.name for e in topo.entities if e.family == "service" and e.name != cause.name]
    sc.noisy_service = rng.choice(noisy) if noisy and rng.random() < 0.75 else None
    sc.extra_logs = _noise_logs(sc, rng) + _rollout_logs(sc, rng)
    sc.distractors = _distractor(sc, rng)
    sc.missing = _missing(sc, rng)
    return sc


__all__ = [
    "AlertSpec",
    "PreviousFault",
    "Sampling",
    "Scenario",
    "Victim",
    "build_scenario",
    "fault_context",
    "has_pool",
    "victims_of",
    "SOURCE_FILES",
    "_iso",
]
