"""How each fault bends the requests that pass through it: the fault's trace signature.

A fault acts at one place in the request path, and the trace generator
(`sim/traces.py`) lets its effect travel up the call tree the way it really
does. The places are:

- `slow`: a multiplier on an entity's own (self) time on every operation (CPU
  contention, lock waits, a slow regression, queueing under a surge);
- `pauses`: the chance an operation stalls on a garbage-collection pause;
- `fail`: the entity's own code fails an operation, so the error originates in
  its span (a code fault, a full disk failing writes, an OOM-killed process);
- `refuse`: a call into the entity fails at the client with no server span
  (the process is down, restarting, or refuses the TLS handshake);
- `network`: extra delay and packet loss on calls that cross the faulty link:
  into or out of the entities behind it, never between two of them;
- `lookup`: the entity's outgoing calls fail to resolve their callee (DNS);
- `pool`: before calling a callee the entity waits for a pooled connection,
  and sometimes times out (the error is the caller's own);
- `surge`: extra requests entering at the entity;
- `wrong`: the entity answers, but its callers cannot use the answer and fail in
  their own code right after the call (a wrong return value).

Each is a function of time, taken where it can be from the metric shapes the
fault plan already bends (`FaultPlan.shapes`), so traces and metrics tell the
same story with the same timing.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rootward.sim.scenario import Scenario, Victim
from rootward.sim.signals import Shape
from rootward.sim.topologies import SimTopology

Profile = Callable[[float], float]


def _zero(t: float) -> float:
    return 0.0


def _one(t: float) -> float:
    return 1.0


@dataclass(frozen=True)
class Failure:
    """Operations of the entity fail in its own code with probability `chance(t)`."""

    chance: Profile
    message: str
    writes_only: bool = False
    status_code: int = 500


@dataclass(frozen=True)
class Refusal:
    """Calls into the entity fail before reaching it, after `duration_ms`, with no server span."""

    chance: Profile
    message: str
    duration_ms: float


@dataclass(frozen=True)
class Link:
    """A faulty network element: extra round-trip time and loss on calls that cross it."""

    behind: frozenset[str]  # entities whose traffic goes through it
    delay_ms: Profile  # extra time per crossing call (split between request and response)
    loss: Profile = _zero  # share of packets lost


@dataclass(frozen=True)
class Pool:
    """The entity waits `wait_ms(t)` for a connection before calling `callee`; times out with `timeout(t)`."""

    callee: str
    wait_ms: Profile
    timeout: Profile
    message: str


@dataclass
class Bends:
    slow: dict[str, Profile] = field(default_factory=dict)
    pauses: dict[str, Profile] = field(default_factory=dict)
    fail: dict[str, Failure] = field(default_factory=dict)
    refuse: dict[str, Refusal] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)  # faulty network elements
    lookup: dict[str, Refusal] = field(default_factory=dict)
    pool: dict[str, Pool] = field(default_factory=dict)
    surge: tuple[str, Profile] | None = None  # (entry entity, extra traffic as a multiple of its usual)
    wrong: dict[str, Profile] = field(default_factory=dict)  # chance a caller cannot use the entity's answer


# --- profiles from the plan's metric shapes -------------------------------------------------


def _factor(shape: Shape | None) -> Profile:
    """A multiplicative shape as a profile: 1 before, its factor after."""
    if shape is None:
        return _one
    return lambda t: shape(int(t), 1.0)


def _added(shape: Shape | None) -> Profile:
    """An additive shape as a profile: 0 before, what it adds after."""
    if shape is None:
        return _zero
    return lambda t: shape(int(t), 0.0)


def _ramp(start: float, rise_s: float, level: float = 1.0) -> Profile:
    return lambda t: 0.0 if t < start else level * min(1.0, (t - start) / rise_s)


def _victim(v: Victim, onset: int) -> Profile:
    """The same 0..strength progress the renderer applies to the victim's metrics."""
    start = onset + v.starts
    return lambda t: 0.0 if t < start else min(1.0, (t - start) / 120.0) * v.strength


def _scaled(profile: Profile, k: float, base: float = 1.0) -> Profile:
    return lambda t: base + k * profile(t)


def _clip(profile: Profile, hi: float = 1.0) -> Profile:
    return lambda t: max(0.0, min(hi, profile(t)))


def _pressure(sc: Scenario) -> Profile:
    """Heap pressure of the cause, 0 (usual) .. 1 (at its limit), from its memory shape."""
    shape = sc.plan.shapes.get("memory_bytes")
    base = sc.baselines.get((sc.cause.name, "memory_bytes"))
    if shape is None or base is None or not base.limit or base.limit <= base.level:
        return _zero
    level, limit = base.level, base.limit
    return lambda t: max(0.0, min(1.0, (shape(int(t), level) - level) / (limit - level)))


def _restarting(shape: Shape | None, down_s: float) -> Profile:
    """1 while the process is restarting: a restart counted in the last `down_s` seconds."""
    if shape is None:
        return _zero
    return lambda t: 1.0 if shape(int(t), 0.0) > shape(int(t - down_s), 0.0) else 0.0


# --- where a fault sits in the network ------------------------------------------------------


def behind(topo: SimTopology, name: str) -> frozenset[str]:
    """Entities whose traffic passes through `name`: itself, what runs on it, what sits behind a network device."""
    out = {name}
    frontier = [name]
    while frontier:
        cur = frontier.pop()
        network = topo.get(cur).family == "network"
        for e in topo.entities:
            if e.name not in out and (cur in e.runs_on or (network and cur in e.depends_on)):
                out.add(e.name)
                frontier.append(e.name)
    return frozenset(out)


def _residents(sc: Scenario) -> dict[str, Profile]:
    """What runs on the faulty machine (directly or on its VMs), with each one's symptom progress."""
    names = behind(sc.topology, sc.cause.name) - {sc.cause.name}
    out: dict[str, Profile] = {}
    for name in sorted(names):
        v = sc.victims.get(name)
        out[name] = _victim(v, sc.onset) if v is not None else _ramp(sc.onset, 120.0)
    return out


def _rtt_extra(sc: Scenario) -> Profile:
    shape = sc.plan.shapes.get("network_rtt_ms")
    base = sc.baselines.get((sc.cause.name, "network_rtt_ms"))
    if shape is None:
        return _zero
    level = base.level if base is not None else 0.5
    return lambda t: max(0.0, shape(int(t), level) - level)


# --- the faults -------------------------------------------------------------------------


def _cpu_saturation(sc: Scenario, rng: random.Random, b: Bends) -> None:
    if sc.cause.family == "host":
        for name, progress in _residents(sc).items():
            b.slow[name] = _scaled(progress, rng.uniform(1.5, 3.0))
    else:
        b.slow[sc.cause.name] = _factor(sc.plan.shapes.get("latency_p99_ms"))


def _memory_leak(sc: Scenario, rng: random.Random, b: Bends) -> None:
    pressure = _pressure(sc)
    b.slow[sc.cause.name] = _factor(sc.plan.shapes.get("latency_p99_ms"))
    b.pauses[sc.cause.name] = lambda t: 0.25 * pressure(t) ** 3


def _oom_kill(sc: Scenario, rng: random.Random, b: Bends) -> None:
    name, pressure = sc.cause.name, _pressure(sc)
    b.slow[name] = lambda t: (1.0 + 1.5 * pressure(t) ** 2) * _factor(sc.plan.shapes.get("latency_p99_ms"))(t)
    b.pauses[name] = lambda t: 0.2 * pressure(t) ** 4
    restarting = _restarting(sc.plan.shapes.get("restarts_total"), rng.uniform(15.0, 40.0))
    b.refuse[name] = Refusal(restarting, "connect: connection refused (container restarting after OOMKilled)", 1.5)
    b.fail[name] = Failure(_clip(_added(sc.plan.shapes.get("error_rate"))), "upstream connection reset (OOMKilled)")


def _crash_loop(sc: Scenario, rng: random.Random, b: Bends) -> None:
    rate = _factor(sc.plan.shapes.get("request_rate"))
    b.refuse[sc.cause.name] = Refusal(_clip(lambda t: 1.0 - rate(t)), "connect: connection refused", 1.2)
    b.fail[sc.cause.name] = Failure(_clip(_added(sc.plan.shapes.get("error_rate"))), "process exited mid-request")


def _disk_full(sc: Scenario, rng: random.Random, b: Bends) -> None:
    full = _ramp(sc.onset, 60.0, rng.uniform(0.75, 0.95))
    message = "write failed: No space left on device (ENOSPC)"
    if sc.cause.family == "host":
        for name, progress in _residents(sc).items():
            b.fail[name] = Failure(_scaled(progress, 0.3, 0.0), message, writes_only=True)
        return
    b.fail[sc.cause.name] = Failure(full, message, writes_only=True)
    b.slow[sc.cause.name] = _factor(sc.plan.shapes.get("latency_p99_ms"))


def _network_latency(sc: Scenario, rng: random.Random, b: Bends) -> None:
    if sc.cause.family == "external":
        b.links.append(Link(frozenset({sc.cause.name}), _ramp(sc.onset, 30.0, rng.uniform(2500.0, 8000.0))))
    elif sc.plan.link_delay_ms:
        b.links.append(Link(frozenset({sc.cause.name}), _ramp(sc.onset, 30.0, sc.plan.link_delay_ms)))
    else:
        extra = _rtt_extra(sc)
        b.links.append(Link(behind(sc.topology, sc.cause.name), _scaled(extra, rng.uniform(1.0, 1.5), 0.0)))


def _packet_loss(sc: Scenario, rng: random.Random, b: Bends) -> None:
    loss = _clip(_added(sc.plan.shapes.get("packet_loss_ratio")))
    b.links.append(Link(behind(sc.topology, sc.cause.name), _zero, loss))


def _dns_failure(sc: Scenario, rng: random.Random, b: Bends) -> None:
    errors = _added(sc.plan.shapes.get("error_rate"))
    latency = sc.baselines.get((sc.cause.name, "latency_p99_ms"))
    slow = _factor(sc.plan.shapes.get("latency_p99_ms"))(sc.window_end)
    answer_ms = (latency.level if latency else 3.0) * slow
    cached = rng.uniform(0.3, 0.6)  # lookups that hit a client-side cache do not fail
    addr = sc.cause.attributes.get("address", sc.cause.name)
    for e in sc.topology.entities:
        if sc.cause.name in e.depends_on:
            b.lookup[e.name] = Refusal(
                _clip(_scaled(errors, 1.0 - cached, 0.0)), f"lookup failed: server misbehaving ({addr}:53)", answer_ms
            )


def _dependency_down(sc: Scenario, rng: random.Random, b: Bends) -> None:
    stop = sc.plan.metrics_stop if sc.plan.metrics_stop is not None else sc.plan.start
    external = sc.cause.family == "external"
    b.refuse[sc.cause.name] = Refusal(
        _ramp(stop, 1.0),
        "503 Service Unavailable" if external else "connect: connection refused",
        rng.uniform(20.0, 80.0) if external else rng.uniform(0.5, 3.0),
    )


def _connection_pool_exhaustion(sc: Scenario, rng: random.Random, b: Bends) -> None:
    db = next((d for d in sc.cause.depends_on if sc.topology.get(d).family == "database"), None)
    if db is None:
        return
    factor = _factor(sc.plan.shapes.get("latency_p99_ms"))
    errors = _added(sc.plan.shapes.get("error_rate"))
    wait = rng.uniform(20.0, 60.0)
    b.pool[sc.cause.name] = Pool(
        db,
        lambda t: (factor(t) - 1.0) * wait,
        _clip(_scaled(errors, 2.0, 0.0)),
        f"timed out waiting for a connection to {db} from the pool",
    )


def _db_lock_contention(sc: Scenario, rng: random.Random, b: Bends) -> None:
    b.slow[sc.cause.name] = _factor(sc.plan.shapes.get("latency_p99_ms"))
    b.fail[sc.cause.name] = Failure(
        _ramp(sc.onset, 90.0, rng.uniform(0.02, 0.06)), "canceling statement due to lock timeout"
    )


def _code_fault(sc: Scenario, rng: random.Random, b: Bends) -> None:
    """A deploy regression or a bad config: the cause's own handler fails (or slows), callers surface it;
    or it answers wrongly, and its callers fail on the answer in their own code."""
    shapes = sc.plan.shapes
    if "latency_p99_ms" in shapes:
        b.slow[sc.cause.name] = _factor(shapes["latency_p99_ms"])
    if "error_rate" in shapes:
        b.fail[sc.cause.name] = Failure(_clip(_added(shapes["error_rate"])), "unhandled exception in handler")
    if sc.plan.wrong_answers:
        b.wrong[sc.cause.name] = _ramp(sc.onset, 60.0, sc.plan.wrong_answers)


def _certificate_expiry(sc: Scenario, rng: random.Random, b: Bends) -> None:
    if sc.cause.family == "external":
        chance = _ramp(sc.plan.start, 1.0)
    else:
        rate = _factor(sc.plan.shapes.get("request_rate"))
        chance = _clip(lambda t: 1.0 - rate(t))
    b.refuse[sc.cause.name] = Refusal(chance, "x509: certificate has expired", rng.uniform(2.0, 12.0))


def _traffic_surge(sc: Scenario, rng: random.Random, b: Bends) -> None:
    rate = _factor(sc.plan.shapes.get("request_rate"))
    b.surge = (sc.cause.name, lambda t: max(0.0, rate(t) - 1.0))
    b.slow[sc.cause.name] = _factor(sc.plan.shapes.get("latency_p99_ms"))
    errors = _added(sc.plan.shapes.get("error_rate"))
    b.fail[sc.cause.name] = Failure(_clip(errors), "429 Too Many Requests: rate limited", status_code=429)
    for name, v in sc.victims.items():
        if v.relation == "load":
            b.slow[name] = _scaled(_victim(v, sc.onset), 1.5)


_BENDS: dict[str, Callable[[Scenario, random.Random, Bends], None]] = {
    "cpu_saturation": _cpu_saturation,
    "memory_leak": _memory_leak,
    "oom_kill": _oom_kill,
    "crash_loop": _crash_loop,
    "disk_full": _disk_full,
    "network_latency": _network_latency,
    "packet_loss": _packet_loss,
    "dns_failure": _dns_failure,
    "dependency_down": _dependency_down,
    "connection_pool_exhaustion": _connection_pool_exhaustion,
    "db_lock_contention": _db_lock_contention,
    "deploy_regression": _code_fault,
    "config_error": _code_fault,
    "certificate_expiry": _certificate_expiry,
    "traffic_surge": _traffic_surge,
}


def bends_for(sc: Scenario, rng: random.Random) -> Bends:
    """The fault's effect on requests (and its earlier faults' until each ended); a scenario kind
    without a trace signature bends nothing."""
    b = Bends()
    make = _BENDS.get(sc.fault_type)
    if make is not None:
        make(sc, rng, b)
    for p in sc.previous:
        view = replace(sc, fault_type=p.fault_type, cause=p.cause, onset=p.onset, plan=p.plan, victims=p.victims)
        _add_until(b, bends_for(replace(view, previous=[]), rng), p.end)
    return b


def _until(profile: Profile, end: int, after: float) -> Profile:
    return _switch(profile, lambda t: after, end)


def _add_until(b: Bends, earlier: Bends, end: int) -> None:
    """Add an earlier fault's bends, each over at `end`, to the incident's.

    Where both bend the same thing of one entity (the same service faulty twice in a
    row), the earlier fault's holds until its end and the incident's after it; failure
    messages and pool targets stay the incident's.
    """
    pairs: tuple[tuple[dict[str, Profile], dict[str, Profile], Profile], ...] = (
        (b.slow, earlier.slow, _one),
        (b.pauses, earlier.pauses, _zero),
        (b.wrong, earlier.wrong, _zero),
    )
    for mine, theirs, neutral in pairs:
        for name, profile in theirs.items():
            mine[name] = _switch(profile, mine.get(name, neutral), end)
    for name, f in earlier.fail.items():
        now = b.fail.get(name)
        b.fail[name] = replace(now or f, chance=_switch(f.chance, now.chance if now else _zero, end))
    for mine_r, theirs_r in ((b.refuse, earlier.refuse), (b.lookup, earlier.lookup)):
        for name, r in theirs_r.items():
            cur = mine_r.get(name)
            mine_r[name] = replace(cur or r, chance=_switch(r.chance, cur.chance if cur else _zero, end))
    for name, pool in earlier.pool.items():
        if name not in b.pool:
            b.pool[name] = replace(pool, wait_ms=_until(pool.wait_ms, end, 0.0), timeout=_until(pool.timeout, end, 0.0))
    b.links += [Link(x.behind, _until(x.delay_ms, end, 0.0), _until(x.loss, end, 0.0)) for x in earlier.links]
    if b.surge is None and earlier.surge is not None:
        b.surge = (earlier.surge[0], _until(earlier.surge[1], end, 0.0))


def _switch(before: Profile, after: Profile, at: int) -> Profile:
    return lambda t: before(t) if t < at else after(t)
