"""Healthy incidents: alerts that fire while nothing is broken, the cases a `no_fault` verdict is for.

Four kinds, each a real on-call pattern:

* ``healthy-noisy``: a chronically noisy service whose latency monitor trips on
  its own bursts; the team's notes call the monitor noisy, or it has fired and
  cleared before, or only the data shows the habit;
* ``healthy-recovered``: a short blip that the monitor caught and that was over
  (signals back at baseline, the alert resolved or not yet) well before anyone looked;
* ``healthy-storm``: several monitors fire at once on flat signals (a scrape
  hiccup on the monitoring side), on services that share no abnormal dependency;
* ``healthy-rollout``: a rollout long before restarted a service and settled;
  later a monitor on a flat signal fires and the old rollout is the red herring.

Like fault bundles, each is decided from one `random.Random` and rendered by
`sim/render.py`; `truth.json` says `"no_fault": true` and names the kind.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import UTC, datetime

from rootward.sim.faults import FaultPlan, LogEvent, host_of
from rootward.sim.render import alert_payloads, render
from rootward.sim.scenario import AlertSpec, Scenario, _baselines, _noise_logs, _rollout_logs
from rootward.sim.signals import Shape, add_step, compose, counter_steps, step
from rootward.sim.topologies import SimEntity, SimTopology

HEALTHY_KINDS = ("healthy-noisy", "healthy-recovered", "healthy-storm", "healthy-rollout")
_NOTES = (
    "- {alert} on {svc} is noisy: p99 jumps for a few minutes whenever the report export runs. It is harmless "
    "and clears on its own.",
    "- The {alert} alert for {svc} flaps several times a day; it is a known false positive, do not page for it.",
    "- {alert} ({svc}) is flaky because of bursty batch clients. Safe to ignore unless errors rise too.",
)
_STORM_ALERTS = ("TargetDown", "HighLatencyP99", "HighErrorRate", "BlackboxProbeFailed", "ScrapeTimeout")
_BLIP_LINES = (
    ("WARN", "slow request: handler took {ms}ms (threshold 500ms) path=/api/v1/orders"),
    ("ERROR", "upstream request timeout after {ms}ms, returning 504"),
    ("WARN", "request queue depth {n} above soft limit, shedding low-priority work"),
)


def _timeline(rng: random.Random, resolution: int) -> tuple[int, int, int]:
    """(window start, alert time, window end), aligned to the sample resolution like fault bundles."""
    day = datetime(2026, 1, 5, tzinfo=UTC).timestamp() + rng.randint(0, 300) * 86400
    fired = int(day) + rng.randint(0, 23) * 3600 + rng.randint(0, 59) * 60 + rng.choice((0, 15, 30, 45))
    start = fired - rng.randint(50, 75) * 60
    end = fired + rng.randint(18, 30) * 60
    return start - start % resolution, fired, end - end % resolution


def _services(topo: SimTopology) -> list[SimEntity]:
    return [e for e in topo.entities if e.family == "service"]


def _base(topo: SimTopology, kind: str, rng: random.Random, bundle_id: str, cause: SimEntity) -> Scenario:
    resolution = rng.choice((30, 60))
    start, fired, end = _timeline(rng, resolution)
    sc = Scenario(
        id=bundle_id,
        topology=topo,
        fault_type=kind,
        cause=cause,
        onset=fired,
        window_start=start,
        window_end=end,
        resolution=resolution,
        plan=FaultPlan(kind, victim_strength=0.0, notes=""),
        victims={},
        baselines=_baselines(topo, rng),
        kubernetes=topo.name == "shop",
    )
    noisy = [e.name for e in _services(topo) if e.name != cause.name]
    sc.noisy_service = rng.choice(noisy) if noisy and rng.random() < 0.6 else None
    return sc


def _bursts(sc: Scenario, rng: random.Random) -> list[tuple[int, int]]:
    """Bursts of a chronically noisy series through the whole window, one of them at the alert."""
    out: list[tuple[int, int]] = []
    t = sc.window_start + rng.randint(300, 600)
    while t < sc.onset - 600:
        out.append((t, t + rng.randint(120, 240)))
        t += rng.randint(600, 900)
    at = sc.onset - rng.randint(60, 120)
    out.append((at, at + rng.randint(150, 240)))
    return out


def noisy(topo: SimTopology, rng: random.Random, bundle_id: str) -> tuple[Scenario, dict[str, str], list[AlertSpec]]:
    cause = rng.choice(_services(topo))
    sc = _base(topo, "healthy-noisy", rng, bundle_id, cause)
    bursts = _bursts(sc, rng)
    factor = rng.uniform(1.9, 2.6)
    sc.plan.shapes["latency_p99_ms"] = compose(*(step(a, factor, rise_s=30, end=b) for a, b in bursts))
    alert = "HighLatencyP99"
    sc.alerts = [AlertSpec(alert, cause.name, "warning", sc.onset, f"{alert} on {cause.name}")]
    variant = rng.randint(0, 2)
    history = []
    if variant != 1:  # the monitor's own history: it fired and cleared on earlier bursts
        for a, b in bursts[-4:-1]:
            history.append(AlertSpec(alert, cause.name, "warning", a + 60, f"{alert} on {cause.name}", b + 60))
    notes = {}
    if variant != 2:
        line = rng.choice(_NOTES).format(alert=alert, svc=cause.name)
        notes[f"bits/{cause.name}.md"] = f"# {cause.name} notes\n\n{line}\n- Owner: team-core.\n"
    sc.plan.notes = f"{cause.name}'s latency bursts every 10-15 min; the monitor trips on them (variant {variant})"
    return sc, notes, history


def recovered(
    topo: SimTopology, rng: random.Random, bundle_id: str
) -> tuple[Scenario, dict[str, str], list[AlertSpec]]:
    cause = rng.choice(_services(topo))
    sc = _base(topo, "healthy-recovered", rng, bundle_id, cause)
    blip = sc.onset - rng.randint(60, 150)
    until = blip + rng.randint(180, 360)
    errors = rng.random() < 0.5
    shapes: dict[str, Shape] = {"latency_p99_ms": step(blip, rng.uniform(3.0, 6.0), rise_s=30, end=until)}
    if errors:
        shapes["error_rate"] = add_step(blip, rng.uniform(0.04, 0.15), rise_s=30, end=until)
    sc.plan.shapes.update(shapes)
    alert = "HighErrorRate" if errors else "HighLatencyP99"
    resolved_at = until + rng.randint(60, 180)
    # Now and then the monitor has not sent its resolution yet: only the data says the blip is over.
    ends = resolved_at if rng.random() >= 0.35 else None
    sc.alerts = [AlertSpec(alert, cause.name, "critical", sc.onset, f"{alert} on {cause.name}", ends)]
    t = blip + rng.uniform(5, 20)
    while t < until:
        level, text = rng.choice(_BLIP_LINES)
        msg = text.format(ms=rng.randint(1200, 9000), n=rng.randint(200, 900))
        sc.extra_logs.append(LogEvent(round(t, 3), cause.name, level, msg, host_of(cause)))
        t += rng.uniform(4, 15)
    sc.window_end = max(sc.window_end, resolved_at + 12 * 60)
    sc.window_end -= sc.window_end % sc.resolution
    sc.plan.notes = f"{cause.name} blipped for {(until - blip) // 60} min and recovered; the alert resolved"
    return sc, {}, []


def storm(topo: SimTopology, rng: random.Random, bundle_id: str) -> tuple[Scenario, dict[str, str], list[AlertSpec]]:
    members = rng.sample(_services(topo), k=min(len(_services(topo)), rng.randint(3, 5)))
    sc = _base(topo, "healthy-storm", rng, bundle_id, members[0])
    sc.alerts = []
    for i, e in enumerate(members):
        name = rng.choice(_STORM_ALERTS)
        at = sc.onset + (0 if i == 0 else rng.randint(0, 120))
        sc.alerts.append(AlertSpec(name, e.name, rng.choice(("warning", "critical")), at, f"{name} on {e.name}"))
    sc.alerts.sort(key=lambda a: (a.starts_at, a.entity))
    sc.plan.notes = "monitors on unrelated services fired together on flat signals (a scrape hiccup)"
    return sc, {}, []


def rollout(topo: SimTopology, rng: random.Random, bundle_id: str) -> tuple[Scenario, dict[str, str], list[AlertSpec]]:
    services = _services(topo)
    deployed = rng.choice(services)
    sc = _base(topo, "healthy-rollout", rng, bundle_id, deployed)
    at = sc.window_start + rng.randint(5, 15) * 60
    version = f"v{rng.randint(1, 5)}.{rng.randint(0, 40)}.0"
    change: dict[str, str | int] = {"id": f"deploy-{rng.randint(1000, 9999)}", "kind": "deploy", "time": at}
    change |= {"service": deployed.name, "version": version, "author": "ci", "summary": "roll out new version"}
    sc.changes = [change | {"diff": ""}]
    restarts = sc.baselines.get((deployed.name, "restarts_total"))
    if restarts is not None:
        sc.plan.shapes["restarts_total"] = counter_steps([at + 20, at + 50], restarts.level)
    sc.plan.shapes["latency_p99_ms"] = step(at, rng.uniform(1.5, 2.2), rise_s=20, end=at + rng.randint(90, 180))
    # The monitor that fires is on the rolled-out service or one that calls it: the rollout is the red herring.
    alerting = rng.choice([deployed, *(e for e in services if deployed.name in e.depends_on)])
    name = rng.choice(("HighLatencyP99", "HighErrorRate", "BlackboxProbeSlow"))
    sc.alerts = [AlertSpec(name, alerting.name, "warning", sc.onset, f"{name} on {alerting.name}")]
    sc.plan.notes = (
        f"{deployed.name}'s rollout {(sc.onset - at) // 60} min before the alert settled; nothing moved since"
    )
    return sc, {}, []


BUILDERS = {"healthy-noisy": noisy, "healthy-recovered": recovered, "healthy-storm": storm, "healthy-rollout": rollout}


def healthy_files(topo: SimTopology, kind: str, rng: random.Random, bundle_id: str) -> dict[str, bytes]:
    """All files of one healthy bundle: rendered like a fault bundle, with no-fault truth."""
    sc, notes, history = BUILDERS[kind](topo, rng, bundle_id)
    sc.extra_logs = sorted(sc.extra_logs + _noise_logs(sc, rng) + _rollout_logs(sc, rng), key=lambda e: e.ts)
    files = render(sc, rng)
    if history:
        sent = alert_payloads(replace(sc, alerts=history + sc.alerts))
        files["alerts.json"] = (json.dumps(sent, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()
    for rel, text in notes.items():  # the team's line joins whatever notes the service already has
        key = f"knowledge/{rel}"
        old = files.get(key, b"").decode()
        files[key] = (old.rstrip("\n") + "\n" + text.split("\n\n", 1)[1] if old else text).encode()
    truth = {
        "root_cause": None,
        "no_fault": True,
        "kind": kind,
        "notes": sc.plan.notes,
        "topology": topo.name,
        "alerts": [f"{a.name}@{a.entity}" for a in sc.alerts],
    }
    files["truth.json"] = (json.dumps(truth, indent=1, sort_keys=True) + "\n").encode()
    return dict(sorted(files.items()))
