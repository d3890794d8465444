# ruff: noqa: E501  (log message tables: one real-world line per literal reads better unsplit)
"""The 15 fault types of the spec and the traces each leaves behind.

Each fault is a function that, given the cause entity and the timing, returns
a `FaultPlan`: how the cause's own metrics bend, which lines the cause (or its
machine) logs, which change triggered it, how hard callers are hit, and which
alert the cause itself might raise. Symptom propagation to other entities is
the scenario's job (`sim/scenario.py`). Messages are the real software's.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rootward.sim import logtext
from rootward.sim.signals import (
    Baseline,
    Shape,
    add_step,
    compose,
    counter_steps,
    flap,
    plateau,
    ramp_to,
    sawtooth,
    step,
)
from rootward.sim.topologies import SimEntity, SimTopology

CallerMessage = Callable[[SimEntity, str, random.Random], tuple[str, str]]


@dataclass(frozen=True)
class LogEvent:
    ts: float  # epoch seconds with milliseconds
    service: str
    level: str
    message: str
    host: str = ""


@dataclass
class FaultContext:
    topo: SimTopology
    cause: SimEntity
    onset: int  # when symptoms start at the cause
    window_start: int
    window_end: int
    rng: random.Random
    baseline: Callable[[str], Baseline]  # the cause's baseline for a metric
    baseline_of: Callable[[str, str], Baseline | None] = lambda entity, metric: None  # any entity's


@dataclass
class FaultPlan:
    fault_type: str
    shapes: dict[str, Shape] = field(default_factory=dict)
    # Secondary effects on other entities that a hurried reader may mistake for the cause.
    other_shapes: dict[tuple[str, str], Shape] = field(default_factory=dict)
    logs: list[LogEvent] = field(default_factory=list)
    changes: list[dict[str, str | int]] = field(default_factory=list)
    victim_mode: str = "latency"  # latency | errors
    victim_strength: float = 1.0  # 1.0 = clearly visible at hop 1
    caller_message: CallerMessage | None = None
    alert: tuple[str, str] | None = None  # (alertname, severity) the cause itself may raise
    alert_prob: float = 0.4
    alert_at: int = 0
    also_acceptable: list[tuple[str, str]] = field(default_factory=list)
    notes: str = ""
    metrics_stop: int | None = None
    propagation: str = "up"  # up: to dependents; down: to dependencies (load flows down)
    link_delay_ms: float = 0.0  # extra time per call into or out of the cause (delay on its own interface)
    wrong_answers: float = 0.0  # share of the cause's answers its callers cannot use (a wrong return value)
    start: int = 0  # when the fault began (before onset for ramps)


# --- helpers ---------------------------------------------------------------------------


def host_of(entity: SimEntity) -> str:
    return entity.runs_on[0] if entity.runs_on else ""


def repeat(
    ctx: FaultContext,
    start: float,
    end: float,
    mean_gap: float,
    make: Callable[[random.Random], tuple[str, str]],
    service: str | None = None,
    host: str | None = None,
) -> list[LogEvent]:
    """Log lines at jittered intervals in [start, end)."""
    rng = ctx.rng
    svc = service or ctx.cause.name
    h = host if host is not None else host_of(ctx.cause)
    out: list[LogEvent] = []
    t = start + rng.uniform(0, mean_gap)
    while t < end:
        level, msg = make(rng)
        out.append(LogEvent(round(t, 3), svc, level, msg, h))
        t += rng.uniform(0.4, 1.6) * mean_gap
    return out


def _once(
    ctx: FaultContext, t: float, level: str, msg: str, service: str | None = None, host: str | None = None
) -> LogEvent:
    return LogEvent(
        round(t, 3), service or ctx.cause.name, level, msg, host if host is not None else host_of(ctx.cause)
    )


def _fixed(level: str, message: str) -> Callable[[random.Random], tuple[str, str]]:
    """A line maker that always says the same thing."""

    def make(_: random.Random) -> tuple[str, str]:
        return level, message

    return make


def _pid(rng: random.Random) -> int:
    return rng.randint(1200, 48000)


def _version(rng: random.Random) -> tuple[str, str]:
    major, minor, patch = rng.randint(1, 5), rng.randint(0, 40), rng.randint(0, 9)
    return f"v{major}.{minor}.{patch}", f"v{major}.{minor + 1}.0"


def _process(software: str) -> str:
    return {
        "java": "java",
        "go": "server",
        "node": "node",
        "python": "python3",
        "postgres": "postgres",
        "mariadb": "mariadbd",
        "redis": "redis-server",
        "kafka": "java",
        "clickhouse": "clickhouse-serv",
        "php": "php-fpm",
        "dotnet": "dotnet",
        "rust": "vaultwarden",
        "spark": "java",
    }.get(software, software)


def _ts(epoch: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(int(epoch), tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- eligibility -------------------------------------------------------------------------


def _has_dependents(topo: SimTopology, e: SimEntity) -> bool:
    return bool(topo.dependents(e.name))


def _pool_target(topo: SimTopology, e: SimEntity) -> str | None:
    for dep in e.depends_on:
        if topo.get(dep).family in ("database",):
            return dep
    return None


ELIGIBLE: dict[str, Callable[[SimTopology, SimEntity], bool]] = {
    "cpu_saturation": lambda t, e: e.family in ("service", "database", "cache", "host") and _has_dependents(t, e),
    "memory_leak": lambda t, e: e.family in ("service", "cache") and _has_dependents(t, e),
    "oom_kill": lambda t, e: e.family in ("service", "database", "cache") and _has_dependents(t, e),
    "crash_loop": lambda t, e: e.family == "service" and _has_dependents(t, e),
    "disk_full": lambda t, e: e.family in ("database", "host", "storage", "queue") and _has_dependents(t, e),
    "network_latency": lambda t, e: e.family in ("host", "network", "external", "service") and _has_dependents(t, e),
    "packet_loss": lambda t, e: e.family in ("host", "network") and _has_dependents(t, e),
    "dns_failure": lambda t, e: e.family == "dns" and _has_dependents(t, e),
    "dependency_down": lambda t, e: (
        e.family in ("external", "database", "cache", "queue", "service") and _has_dependents(t, e)
    ),
    "connection_pool_exhaustion": lambda t, e: e.family == "service" and _pool_target(t, e) is not None,
    "db_lock_contention": lambda t, e: e.family == "database" and _has_dependents(t, e),
    "deploy_regression": lambda t, e: e.family == "service" and _has_dependents(t, e),
    "config_error": lambda t, e: e.family == "service" and _has_dependents(t, e),
    "certificate_expiry": lambda t, e: e.family in ("service", "external") and _has_dependents(t, e),
    "traffic_surge": lambda t, e: e.family == "service" and bool(e.depends_on),
}


def eligible_entities(topo: SimTopology, fault_type: str) -> list[SimEntity]:
    check = ELIGIBLE[fault_type]
    return [e for e in topo.entities if check(topo, e)]


# --- the faults --------------------------------------------------------------------------


def cpu_saturation(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    cpu = ctx.baseline("cpu_usage")
    start = o - rng.randint(60, 240)
    plan = FaultPlan("cpu_saturation", start=start, victim_mode="latency", victim_strength=rng.uniform(0.7, 1.3))
    plan.shapes["cpu_usage"] = plateau(start, cpu.limit * rng.uniform(0.97, 1.0), rise_s=o - start)
    if c.family != "host":
        plan.shapes["latency_p99_ms"] = step(o, rng.uniform(3, 9), rise_s=120)
    if c.family == "host":

        def host_line(r: random.Random) -> tuple[str, str]:
            return r.choice(
                (
                    (
                        "WARN",
                        f"kernel: watchdog: BUG: soft lockup - CPU#{r.randint(0, 7)} stuck for {r.randint(22, 60)}s! [{r.choice(('java', 'python3', 'node'))}:{_pid(r)}]",
                    ),
                    (
                        "WARN",
                        f"kernel: INFO: task kworker/{r.randint(0, 7)}:{r.randint(0, 3)}:{_pid(r)} blocked for more than 120 seconds.",
                    ),
                    (
                        "WARN",
                        f"kubelet[1022]: W0605 eviction_manager.go:349] eviction manager: load average {r.uniform(18, 40):.2f} exceeds threshold",
                    ),
                )
            )

        plan.logs += repeat(ctx, o, ctx.window_end, 40, host_line, host="")
        plan.alert = ("HostHighCpuLoad", "warning")
    elif c.software == "java":
        plan.logs += repeat(
            ctx,
            o,
            ctx.window_end,
            35,
            lambda r: (
                "WARN",
                f"HikariPool-1 - Thread starvation or clock leap detected (housekeeper delta={r.randint(45, 90)}s).",
            ),
        )
        plan.alert = ("CPUThrottlingHigh", "warning")
    elif c.family == "database":
        plan.logs += repeat(
            ctx,
            o,
            ctx.window_end,
            25,
            lambda r: (
                "LOG",
                f"LOG:  duration: {r.randint(2500, 9000)}.{r.randint(100, 999)} ms  statement: SELECT p.* FROM products p JOIN stock s ON s.product_id = p.id WHERE s.qty > 0 ORDER BY p.rank",
            ),
        )
        plan.alert = ("PostgresHighCPU", "warning")
    else:
        plan.logs += repeat(
            ctx,
            o,
            ctx.window_end,
            30,
            lambda r: (
                "WARN",
                f"slow request: handler took {r.randint(2000, 9000)}ms (threshold 500ms) cpu_throttled_ratio={r.uniform(0.4, 0.9):.2f}",
            ),
        )
        plan.alert = ("CPUThrottlingHigh", "warning")
    plan.alert_at = o + rng.randint(120, 600)
    plan.notes = f"{c.name} CPU pinned at its limit from {_ts(o)}"
    return plan


def memory_leak(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    mem = ctx.baseline("memory_bytes")
    start = max(ctx.window_start + 300, o - rng.randint(25, 45) * 60)
    plan = FaultPlan("memory_leak", start=start, victim_mode="latency", victim_strength=rng.uniform(0.6, 1.1))
    plan.shapes["memory_bytes"] = ramp_to(start, o + rng.randint(300, 900), mem.limit * rng.uniform(0.95, 0.99))
    plan.shapes["latency_p99_ms"] = step(o, rng.uniform(2.5, 6), rise_s=300)
    plan.shapes["cpu_usage"] = step(o, rng.uniform(1.5, 2.5), rise_s=300)
    limit_mib = int(mem.limit / 2**20)
    if c.software == "java":

        def gc(r: random.Random) -> tuple[str, str]:
            used = int(limit_mib * r.uniform(0.93, 0.99))
            return (
                "WARN",
                f"[gc] GC(4{r.randint(100, 999)}) Pause Full (G1 Compaction Pause) {used}M->{used - r.randint(1, 8)}M({limit_mib}M) {r.randint(900, 4000)}.{r.randint(100, 999)}ms",
            )
    elif c.software == "node":

        def gc(r: random.Random) -> tuple[str, str]:
            used = limit_mib * r.uniform(0.93, 0.99)
            return (
                "WARN",
                f"[1:0x5f1c2d0] {r.randint(100000, 999999)} ms: Mark-Compact {used:.1f} ({limit_mib + 20:.1f}) -> {used - 3:.1f} ({limit_mib + 22:.1f}) MB, {r.randint(900, 2500)}.5 / 0.0 ms  (average mu = 0.{r.randint(100, 199)}) allocation failure; scavenge might not succeed",
            )
    elif c.family == "cache":

        def gc(r: random.Random) -> tuple[str, str]:
            return (
                "WARN",
                f"{r.randint(1, 99)}:M # WARNING: used_memory {limit_mib * r.uniform(0.93, 0.99):.0f}mb is close to maxmemory; evicting keys (allkeys-lru), evicted_keys={r.randint(1000, 90000)}",
            )
    else:

        def gc(r: random.Random) -> tuple[str, str]:
            return (
                "WARN",
                f"memory usage high: heap_inuse={limit_mib * r.uniform(0.9, 0.99):.0f}MiB of {limit_mib}MiB limit, gc_pause_ms={r.randint(300, 2000)} goroutines/workers={r.randint(2000, 60000)}",
            )

    plan.logs += repeat(ctx, o - 300, ctx.window_end, 45, gc)
    plan.alert = ("ContainerMemoryNearLimit", "warning")
    plan.alert_at = o + rng.randint(0, 600)
    plan.alert_prob = 0.45
    plan.notes = f"{c.name} memory grows linearly from {_ts(start)} towards its limit"
    return plan


def oom_kill(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    mem = ctx.baseline("memory_bytes")
    period = rng.randint(4, 9) * 60
    kills = list(range(o + period, ctx.window_end, period))
    plan = FaultPlan("oom_kill", start=o, victim_mode="errors", victim_strength=rng.uniform(0.6, 1.2))
    plan.shapes["memory_bytes"] = sawtooth(o, period, mem.level, mem.limit * 1.0)
    plan.shapes["restarts_total"] = counter_steps(kills, 0.0)
    if c.family != "database":
        plan.shapes["error_rate"] = add_step(o + period - 60, rng.uniform(0.05, 0.2), rise_s=60)
    else:
        plan.shapes["latency_p99_ms"] = step(o + period - 60, rng.uniform(3, 8))
    proc = _process(c.software)
    host = host_of(c)
    for k in kills:
        pid = _pid(rng)
        kb = int(mem.limit / 1024)
        if host:
            plan.logs.append(
                _once(
                    ctx,
                    k - rng.uniform(0.5, 2),
                    "ERROR",
                    f"kernel: Memory cgroup out of memory: Killed process {pid} ({proc}) total-vm:{kb * 2}kB, "
                    f"anon-rss:{kb - rng.randint(100, 900)}kB, file-rss:{rng.randint(100, 9000)}kB, shmem-rss:0kB, "
                    f"UID:1000 pgtables:{rng.randint(2000, 9000)}kB oom_score_adj:{rng.choice((936, 999, 1000))} "
                    f"(cgroup /kubepods/burstable/{c.name})",
                    service=host,
                    host="",
                )
            )
        plan.logs.append(
            _once(
                ctx,
                k + rng.uniform(1, 5),
                "WARN",
                f"container {c.name} terminated: reason=OOMKilled exitCode=137 restartCount={kills.index(k) + 1}",
            )
        )
        if c.software == "postgres":
            plan.logs.append(
                _once(ctx, k + 6, "LOG", f"LOG:  server process (PID {pid}) was terminated by signal 9: Killed")
            )
            plan.logs.append(_once(ctx, k + 6.1, "LOG", "LOG:  terminating any other active server processes"))
            plan.logs.append(
                _once(
                    ctx,
                    k + 9,
                    "LOG",
                    "LOG:  database system was not properly shut down; automatic recovery in progress",
                )
            )
    plan.alert = ("KubeContainerOOMKilled", "warning")
    plan.alert_at = kills[0] + 60 if kills else o + 300
    plan.also_acceptable = [(c.name, "memory_leak")]
    plan.notes = f"{c.name} killed by the OOM killer every ~{period // 60} min"
    return plan


_CRASH_REASONS = {
    "java": 'Exception in thread "main" liquibase.exception.LockException: Could not acquire change log lock.  Currently locked by {name}-7c9f since {since}',
    "go": "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.loadShards(...)\n\t/src/cmd/server/main.go:118 +0x1d4",
    "node": "Error: EACCES: permission denied, open '/var/cache/{name}/index.lock'\n    at Object.openSync (node:fs:596:3)",
    "python": "sqlite3.DatabaseError: database disk image is malformed (while loading /data/{name}/state.db)",
}


def crash_loop(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    plan = FaultPlan("crash_loop", start=o, victim_mode="errors", victim_strength=rng.uniform(0.8, 1.3))
    restarts: list[int] = []
    t, backoff = o, 10
    while t < ctx.window_end:
        restarts.append(t)
        t += backoff + rng.randint(5, 20)
        backoff = min(backoff * 2, 300)
    plan.shapes["restarts_total"] = counter_steps(restarts, 0.0)
    plan.shapes["request_rate"] = step(o, 0.03, rise_s=30)
    plan.shapes["error_rate"] = add_step(o, 0.6, rise_s=30)
    reason = _CRASH_REASONS.get(c.software, _CRASH_REASONS["go"]).format(name=c.name, since=_ts(o - 3600))
    for k, r in enumerate(restarts):
        plan.logs.append(_once(ctx, r + rng.uniform(2, 6), "FATAL" if c.software != "go" else "ERROR", reason))
        if k >= 1:
            plan.logs.append(
                _once(
                    ctx,
                    r + rng.uniform(6, 9),
                    "WARN",
                    f"Back-off restarting failed container {c.name} in pod {c.name}-{logtext.hexid(rng, 5)} (CrashLoopBackOff)",
                )
            )
    plan.alert = ("KubePodCrashLooping", "warning")
    plan.alert_at = o + rng.randint(300, 900)
    plan.alert_prob = 0.5
    plan.notes = f"{c.name} crashes on start from {_ts(o)}"
    return plan


def disk_full(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    start = max(ctx.window_start + 120, o - rng.randint(20, 50) * 60)
    plan = FaultPlan("disk_full", start=start, victim_mode="errors", victim_strength=rng.uniform(0.7, 1.2))
    plan.shapes["disk_used_ratio"] = ramp_to(start, o, 1.0, hold_noise=0.004)
    if c.family == "database":
        plan.shapes["latency_p99_ms"] = step(o, rng.uniform(3, 10))
    msgs: tuple[str, ...]
    if c.software in ("postgres", "mariadb"):
        msgs = (
            'ERROR:  could not extend file "base/16384/{n}": No space left on device',
            'PANIC:  could not write to file "pg_wal/xlogtemp.{n}": No space left on device',
            "ERROR:  could not write block {n} of temporary file: No space left on device",
        )
    elif c.software == "kafka":
        msgs = (
            "ERROR Error while appending records to events-{p} in dir /var/lib/kafka (kafka.server.LogDirFailureChannel) java.io.IOException: No space left on device",
        )
    elif c.software == "clickhouse":
        msgs = (
            "<Error> executeQuery: Code: 243. DB::Exception: Cannot reserve 1.00 MiB, not enough space. (NOT_ENOUGH_SPACE)",
        )
    elif c.family == "storage":
        msgs = (
            "zfs: pool 'tank' is 100% full, writes will fail (ENOSPC) on dataset tank/{p}",
            "s3 api: PutObject failed: Storage resources are insufficient for the write operation .minio.sys/tmp/{n}",
        )
    else:
        msgs = (
            "systemd-journald[312]: Failed to write entry ({p} items, {n} bytes), ignoring: No space left on device",
            "kubelet[1022]: E0605 eviction_manager.go:574] eviction manager: attempting to reclaim ephemeral-storage, nodefs.available < 10%",
            "kernel: EXT4-fs warning (device sda1): ext4_dx_add_entry:2538: Directory index full! No space left on device",
        )
    plan.logs += repeat(
        ctx,
        o,
        ctx.window_end,
        25,
        lambda r: ("ERROR", r.choice(msgs).format(n=r.randint(1000, 99999), p=r.randint(1, 11))),
        host="" if c.family == "host" else None,
    )
    plan.alert = ("NodeFilesystemAlmostFull" if c.family in ("host", "storage") else "DiskUsageCritical", "warning")
    plan.alert_at = o + rng.randint(-300, 300)
    plan.alert_prob = 0.4
    plan.notes = f"{c.name} disk filled up from {_ts(start)} and hit 100% at {_ts(o)}"
    return plan


def network_latency(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    plan = FaultPlan("network_latency", start=o, victim_mode="latency", victim_strength=rng.uniform(0.8, 1.3))
    if c.family == "external":
        url = c.attributes.get("url", f"https://{c.name}")

        def slow(caller: SimEntity, callee: str, r: random.Random) -> tuple[str, str]:
            return (
                "WARN",
                f"slow response from {callee} ({url}): {r.uniform(2.5, 9.0):.2f}s (p50 normally 0.12s) req_id={logtext.hexid(r)}",
            )

        plan.caller_message = slow
        plan.notes = f"responses from {c.name} slowed to seconds at {_ts(o)}"
        plan.alert = None
    elif c.family == "service":
        # Delay on the service's own interface, as chaos tools inject it on a pod: every call into or
        # out of it takes longer, nothing renegotiates and nothing logs it. Its own server-side latency
        # moves only where it waits on calls out; a leaf's does not move at all.
        plan.link_delay_ms = rng.uniform(80.0, 400.0)
        if any(ctx.topo.get(d).family != "dns" for d in c.depends_on):
            level = max(ctx.baseline("latency_p99_ms").level, 1.0)
            plan.shapes["latency_p99_ms"] = step(o, 1.0 + plan.link_delay_ms / level, rise_s=30)
        plan.notes = (
            f"calls into and out of {c.name} delayed by {plan.link_delay_ms:.0f} ms on its network from {_ts(o)}"
        )
        plan.alert = None
    else:
        plan.shapes["network_rtt_ms"] = step(o, rng.uniform(60, 300), rise_s=30)
        iface = rng.choice(("eno1", "eth0", "ens18", "enp3s0"))
        speed = rng.choice(("10 Mbps", "100 Mbps"))
        prefix = "kernel: " if c.family == "host" else ""
        plan.logs.append(
            _once(
                ctx,
                o - rng.uniform(5, 40),
                "WARN",
                f"{prefix}e1000e 0000:00:1f.6 {iface}: NIC Link is Up {speed} Full Duplex, Flow Control: None",
                host="",
            )
        )
        plan.logs.append(
            _once(
                ctx,
                o - rng.uniform(1, 5),
                "WARN",
                f"{prefix}e1000e 0000:00:1f.6 {iface}: 10/100 speed: disabling TSO",
                host="",
            )
        )
        # A saturated slow link drops from its transmit queue now and then.
        plan.logs += repeat(
            ctx,
            o + 120,
            ctx.window_end,
            240,
            _fixed(
                "WARN",
                f"{prefix}net_ratelimit: {rng.randint(20, 400)} callbacks suppressed ({iface} tx_dropped rising)",
            ),
            host="",
        )
        plan.notes = f"{c.name} link renegotiated down to {speed} at {_ts(o)}; round trips through it slowed"
        plan.alert = ("NodeNetworkLatencyHigh", "warning")
    plan.alert_at = o + rng.randint(120, 600)
    plan.alert_prob = 0.3
    return plan


def packet_loss(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    plan = FaultPlan("packet_loss", start=o, victim_mode="errors", victim_strength=rng.uniform(0.6, 1.1))
    period = rng.randint(90, 240)
    plan.shapes["packet_loss_ratio"] = flap(o, period, 0.5, rng.uniform(0.05, 0.3), rng.randint(0, 99))
    iface = rng.choice(("eno1", "eth0", "ens18", "lan3"))
    prefix = "kernel: " if c.family == "host" else ""
    t = float(o)
    while t < ctx.window_end:
        plan.logs.append(
            _once(ctx, t + rng.uniform(0, 5), "ERROR", f"{prefix}igb 0000:03:00.0 {iface}: NIC Link is Down", host="")
        )
        plan.logs.append(
            _once(
                ctx,
                t + rng.uniform(6, 20),
                "INFO",
                f"{prefix}igb 0000:03:00.0 {iface}: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX/TX",
                host="",
            )
        )
        if rng.random() < 0.5:
            plan.logs.append(
                _once(
                    ctx,
                    t + rng.uniform(20, 30),
                    "WARN",
                    f"{prefix}bond0: (slave {iface}): link status definitely down, disabling slave",
                    host="",
                )
            )
        t += period * rng.uniform(0.7, 1.3)

    def reset(caller: SimEntity, callee: str, r: random.Random) -> tuple[str, str]:
        # Callers see resets and retransmits, not the link: they do not know which hop dropped them.
        return "ERROR", r.choice(
            (
                f"read tcp {logtext.private_ip(r)}:{r.randint(30000, 60000)}->{logtext.private_ip(r)}:8080: read: connection reset by peer",
                f"request failed: i/o timeout (tcp retransmits={r.randint(3, 12)})",
            )
        )

    plan.caller_message = reset
    plan.alert = ("NodeNetworkInterfaceFlapping", "warning")
    plan.alert_at = o + rng.randint(60, 400)
    plan.alert_prob = 0.35
    plan.notes = f"{c.name} link flapping every ~{period}s from {_ts(o)}"
    return plan


def dns_failure(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    addr = c.attributes.get("address", "10.96.0.10")
    plan = FaultPlan("dns_failure", start=o, victim_mode="errors", victim_strength=rng.uniform(0.8, 1.3))
    plan.shapes["error_rate"] = add_step(o, rng.uniform(0.3, 0.9), rise_s=60)
    plan.shapes["latency_p99_ms"] = step(o, rng.uniform(20, 200), rise_s=60)
    # SERVFAIL: the resolver's upstream or plugin is broken; NXDOMAIN: a zone lost its records.
    nxdomain = rng.random() < 0.35
    looked_up = sorted({d for e in ctx.topo.entities if c.name in e.depends_on for d in e.depends_on if d != c.name})
    looked_up = looked_up or [e.name for e in ctx.topo.entities[:5]]
    zone = "default.svc.cluster.local" if c.software == "coredns" else "lan" if c.software == "pihole" else "internal"

    def line(r: random.Random) -> tuple[str, str]:
        name = f"{r.choice(looked_up)}.{zone}."
        if c.software == "coredns":
            if nxdomain:
                return (
                    "INFO",
                    f'[INFO] {logtext.private_ip(r)}:{r.randint(30000, 60000)} - {r.randint(1, 65000)} "A IN {name} udp 52 false 512" NXDOMAIN qr,aa,rd {r.uniform(0.0001, 0.002):.6f}s',
                )
            return (
                "ERROR",
                f"[ERROR] plugin/errors: 2 {name} A: read udp {logtext.private_ip(r)}:{r.randint(30000, 60000)}->{logtext.private_ip(r)}:53: i/o timeout",
            )
        if c.software == "pihole":
            if nxdomain:
                return "INFO", f"dnsmasq[{r.randint(300, 900)}]: config {name} is NXDOMAIN"
            return "ERROR", f"dnsmasq[{r.randint(300, 900)}]: reply error is SERVFAIL for {name}"
        if nxdomain:
            return (
                "INFO",
                f"unbound[{r.randint(300, 900)}:0] info: {logtext.private_ip(r)} {name} A IN NXDOMAIN 0.000000 0 {r.randint(40, 120)}",
            )
        return (
            "ERROR",
            f"unbound[{r.randint(300, 900)}:0] error: SERVFAIL <{name} A IN>: all the configured stub or forward servers failed, at zone .",
        )

    plan.logs += repeat(ctx, o, ctx.window_end, 8, line, host="" if not c.runs_on else None)
    if nxdomain:
        plan.logs.append(
            _once(
                ctx,
                o - rng.uniform(5, 40),
                "WARN",
                f"zone {zone}: serial {rng.randint(2026000000, 2026999999)} loaded with 0 records (zone transfer from primary returned empty)",
            )
        )

    def lookup(caller: SimEntity, callee: str, r: random.Random) -> tuple[str, str]:
        others = [d for d in caller.depends_on if d != callee] or [caller.name]
        target = r.choice(others)
        sw = caller.software
        if nxdomain:
            if sw == "java":
                return "ERROR", f"java.net.UnknownHostException: {target}: Name or service not known (resolver {addr})"
            if sw == "node":
                return "ERROR", f"Error: getaddrinfo ENOTFOUND {target} (dns {addr}:53)"
            if sw in ("nginx", "traefik"):
                return "ERROR", f"{target} could not be resolved (3: Host not found) by resolver {addr}"
            if sw in ("python", "spark", "php"):
                return "ERROR", f"socket.gaierror: [Errno -2] Name or service not known: '{target}' (nameserver {addr})"
            return "ERROR", f"dial tcp: lookup {target} on {addr}:53: no such host"
        if sw == "java":
            return (
                "ERROR",
                f"java.net.UnknownHostException: {target}: Temporary failure in name resolution (resolver {addr})",
            )
        if sw == "node":
            return "ERROR", f"Error: getaddrinfo EAI_AGAIN {target} (dns {addr}:53)"
        if sw in ("nginx", "traefik"):
            return "ERROR", f"{target} could not be resolved (2: Server failure) by resolver {addr}"
        if sw in ("python", "spark", "php"):
            return (
                "ERROR",
                f"socket.gaierror: [Errno -3] Temporary failure in name resolution while connecting to {target} (nameserver {addr})",
            )
        return "ERROR", f"dial tcp: lookup {target} on {addr}:53: server misbehaving"

    plan.caller_message = lookup
    plan.alert = ("DNSErrorsHigh", "critical")
    plan.alert_at = o + rng.randint(60, 400)
    plan.alert_prob = 0.35
    plan.notes = f"{c.name} ({addr}) answers {'NXDOMAIN' if nxdomain else 'SERVFAIL'} from {_ts(o)}"
    return plan


_REFUSED = {
    "database": (
        5432,
        "Connection to {callee}:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.",
    ),
    "cache": (6379, "Error: connect ECONNREFUSED {callee}:6379"),
    "queue": (9092, "Connection to node -1 ({callee}:9092) could not be established. Broker may not be available."),
}


def dependency_down(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    plan = FaultPlan("dependency_down", start=o, victim_mode="errors", victim_strength=rng.uniform(0.9, 1.4))
    if c.family == "external":
        url = c.attributes.get("url", f"https://{c.name}")

        def refused(caller: SimEntity, callee: str, r: random.Random) -> tuple[str, str]:
            return "ERROR", r.choice(
                (
                    f'error calling {callee}: Post "{url}/v1/requests": dial tcp {logtext.public_ip(r)}:443: connect: connection refused',
                    f"{callee} unavailable: 503 Service Unavailable from {url} (upstream connect error or disconnect/reset before headers)",
                )
            )

        plan.caller_message = refused
        plan.notes = f"external {c.name} refuses connections from {_ts(o)}"
    else:
        plan.metrics_stop = o + rng.randint(0, 30)
        last: tuple[str, ...]
        if c.software == "postgres":
            last = (
                "LOG:  received fast shutdown request",
                "LOG:  aborting any active transactions",
                "LOG:  database system is shut down",
            )
        elif c.software == "redis":
            last = ("# User requested shutdown...", "# Redis is now ready to exit, bye bye...")
        elif c.software == "kafka":
            last = (
                "[KafkaServer id=1] shutting down (kafka.server.KafkaServer)",
                "[KafkaServer id=1] shut down completed (kafka.server.KafkaServer)",
            )
        else:
            last = ("received SIGTERM, shutting down", "graceful shutdown complete")
        for k, msg in enumerate(last):
            plan.logs.append(_once(ctx, o - 3 + k * 0.4, "LOG" if msg.startswith("LOG") else "INFO", msg))
        port, tmpl = _REFUSED.get(c.family, (8080, "dial tcp {callee}:8080: connect: connection refused"))

        def refused(caller: SimEntity, callee: str, r: random.Random) -> tuple[str, str]:
            msg = tmpl.format(callee=callee)
            if caller.software == "java" and c.family == "database":
                msg = "org.postgresql.util.PSQLException: " + msg
            return "ERROR", msg

        plan.caller_message = refused
        plan.alert = ("TargetDown", "critical")
        plan.notes = f"{c.name} stopped at {_ts(o)} and did not come back"
    plan.alert_at = o + rng.randint(60, 300)
    plan.alert_prob = 0.45
    return plan


_POOL_LINES = {
    "java": "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
    "node": "KnexTimeoutError: Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?",
    "python": "sqlalchemy.exc.TimeoutError: QueuePool limit of size {max} overflow 0 reached, connection timed out, timeout 30.00",
    "go": "acquire conn from pool: context deadline exceeded (pgxpool: max_conns={max} acquired={max})",
    "dotnet": "System.InvalidOperationException: Timeout expired. The timeout period elapsed prior to obtaining a connection from the pool. This may have occurred because all pooled connections were in use and max pool size was reached.",
    "rust": "r2d2: timed out waiting for connection (pool max_size={max})",
    "php": "PDOException: SQLSTATE[HY000]: General error: 2006 pool exhausted, all {max} persistent connections busy",
}


def connection_pool_exhaustion(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    db = _pool_target(ctx.topo, c) or ""
    pool = ctx.baseline("db_connections_max")
    size = int(pool.level)
    plan = FaultPlan(
        "connection_pool_exhaustion", start=o, victim_mode="latency", victim_strength=rng.uniform(0.8, 1.3)
    )
    trigger = rng.choice(("config", "traffic", "leak"))
    if trigger == "config":
        smaller = max(4, size // 2)
        when = o - rng.randint(2, 12) * 60
        plan.changes.append(
            {
                "id": f"config-{rng.randint(1000, 9999)}",
                "kind": "config",
                "service": c.name,
                "time": when,
                "version": "",
                "author": rng.choice(("alice", "ops-bot", "marta")),
                "summary": "lower DB pool size to reduce load on the database",
                "diff": f"- maximumPoolSize: {size}\n+ maximumPoolSize: {smaller}",
            }
        )
        plan.shapes["db_connections_max"] = step(when, smaller / size, rise_s=30)
        limit = float(smaller)
        plan.also_acceptable.append((c.name, "config_error"))
        plan.notes = f"{c.name} pool shrunk from {size} to {smaller} by a config change; it saturates under normal load"
    elif trigger == "traffic":
        limit = float(size)
        plan.shapes["request_rate"] = step(o - 120, rng.uniform(1.4, 1.8), rise_s=300)
        plan.notes = f"{c.name} DB pool ({size}) saturated by a moderate traffic rise"
    else:
        limit = float(size)
        plan.notes = f"{c.name} leaks DB connections (not returned to the pool) until all {size} are held"
    plan.shapes["db_connections_in_use"] = plateau(o - rng.randint(120, 300), limit, rise_s=rng.randint(120, 300))
    plan.shapes["latency_p99_ms"] = step(o, rng.uniform(6, 20), rise_s=60)
    plan.shapes["error_rate"] = add_step(o, rng.uniform(0.03, 0.15), rise_s=120)
    line = _POOL_LINES.get(c.software, _POOL_LINES["go"])
    max_s = str(int(limit))
    plan.logs += repeat(ctx, o, ctx.window_end, 6, lambda r: ("ERROR", line.format(max=max_s)))
    plan.logs += repeat(
        ctx,
        o,
        ctx.window_end,
        60,
        lambda r: ("WARN", f"db pool stats: active={max_s}/{max_s} idle=0 waiting={r.randint(20, 120)} target={db}"),
    )
    plan.alert = ("DBConnectionPoolSaturated", "warning")
    plan.alert_at = o + rng.randint(60, 400)
    plan.alert_prob = 0.35
    if db:
        plan.also_acceptable.append((db, "connection_pool_exhaustion"))
    return plan


def db_lock_contention(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    plan = FaultPlan("db_lock_contention", start=o, victim_mode="latency", victim_strength=rng.uniform(0.8, 1.3))
    plan.shapes["lock_waits"] = add_step(o, rng.uniform(20, 90), rise_s=90)
    plan.shapes["latency_p99_ms"] = step(o, rng.uniform(15, 60), rise_s=90)
    plan.shapes["db_connections_in_use"] = step(o, rng.uniform(1.5, 2.5), rise_s=120)
    if c.software == "mariadb":

        def line(r: random.Random) -> tuple[str, str]:
            return "ERROR", r.choice(
                (
                    "[ERROR] InnoDB: Lock wait timeout exceeded; try restarting transaction (table oc_filecache)",
                    "[Note] InnoDB: Transactions deadlock detected, dumping detailed information. Deadlock found when trying to get lock",
                )
            )
    elif c.software == "clickhouse":

        def line(r: random.Random) -> tuple[str, str]:
            return (
                "ERROR",
                "<Error> executeQuery: Code: 473. DB::Exception: Locking attempt timed out! Possible deadlock avoided. Client should retry. (DEADLOCK_AVOIDED)",
            )
    else:

        def line(r: random.Random) -> tuple[str, str]:
            pid = _pid(r)
            return r.choice(
                (
                    (
                        "LOG",
                        f"LOG:  process {pid} still waiting for ShareLock on transaction {r.randint(10**6, 10**7)} after {r.randint(1000, 9000)}.{r.randint(100, 999)} ms",
                    ),
                    (
                        "LOG",
                        f"DETAIL:  Process holding the lock: {pid - r.randint(1, 90)}. Wait queue: {pid}, {pid + 3}, {pid + 9}.",
                    ),
                    (
                        "ERROR",
                        f"ERROR:  deadlock detected\nDETAIL:  Process {pid} waits for ShareLock on transaction {r.randint(10**6, 10**7)}; blocked by process {pid + 11}.",
                    ),
                    ("ERROR", "ERROR:  canceling statement due to lock timeout"),
                )
            )

    plan.logs.append(
        _once(
            ctx,
            o - rng.randint(30, 120),
            "LOG",
            "LOG:  statement: BEGIN; UPDATE inventory SET reserved = reserved + 1 WHERE sku IN (SELECT sku FROM cart_items WHERE ...) -- batch reconcile",
        )
    )
    plan.logs += repeat(ctx, o, ctx.window_end, 7, line)

    def cancel(caller: SimEntity, callee: str, r: random.Random) -> tuple[str, str]:
        if caller.software == "java":
            return (
                "ERROR",
                f"org.postgresql.util.PSQLException: ERROR: canceling statement due to statement timeout (query on {callee})",
            )
        return (
            "ERROR",
            f"query on {callee} failed: pq: canceling statement due to statement timeout (elapsed {r.randint(5, 30)}s)",
        )

    plan.caller_message = cancel
    if rng.random() < 0.5:
        # Classic confounder: queries stuck behind locks hold client connections, so the callers'
        # pools saturate too; lock_waits on the database is what tells the two apart.
        for client in ctx.topo.entities:
            pool = ctx.baseline_of(client.name, "db_connections_max")
            if c.name not in client.depends_on or pool is None:
                continue
            at = o + rng.randint(60, 180)
            plan.other_shapes[(client.name, "db_connections_in_use")] = plateau(
                at, pool.level * rng.uniform(0.85, 1.0), rise_s=120
            )
            msg = _POOL_LINES.get(client.software, _POOL_LINES["go"]).format(max=int(pool.level))
            plan.logs += repeat(
                ctx,
                at + 60,
                ctx.window_end,
                25,
                _fixed("ERROR", msg),
                service=client.name,
                host=host_of(client),
            )
    plan.alert = ("PostgresLockWaitsHigh", "warning")
    plan.alert_at = o + rng.randint(60, 400)
    plan.alert_prob = 0.35
    plan.notes = f"{c.name} row locks held by a long batch transaction from {_ts(o)}"
    return plan


_REGRESSION_LINES = {
    "java": 'java.lang.NullPointerException: Cannot invoke "com.acme.{cls}.apply(java.util.Map)" because "rule" is null\n\tat com.acme.{name}.{cls}Service.handle({cls}Service.java:{line}) version={version}',
    "go": "panic recovered in handler: runtime error: invalid memory address or nil pointer dereference (handlers/{name}.go:{line}) version={version}",
    "node": "TypeError: Cannot read properties of undefined (reading 'currency')\n    at /app/dist/handlers/{name}.js:{line}:31 version={version}",
    "python": "Traceback (most recent call last): ... KeyError: 'shipping_zone' in {name}/handlers.py line {line} version={version}",
    "php": "PHP Fatal error:  Uncaught TypeError: {cls}::apply(): Argument #1 must be of type array, null given in /var/www/html/lib/{cls}.php:{line} version={version}",
    "rust": "thread 'tokio-runtime-worker' panicked at src/api/{name}.rs:{line}:14: called `Option::unwrap()` on a `None` value version={version}",
    "dotnet": "System.NullReferenceException: Object reference not set to an instance of an object. at {cls}.Apply() in /src/{cls}.cs:line {line} version={version}",
}


# What a caller raises on an answer it cannot use: the value is wrong, nothing names who sent it.
_WRONG_ANSWER_LINES = {
    "java": "java.lang.IllegalStateException: unexpected response: field 'amount' is null",
    "go": "handler error: decode response: json: cannot unmarshal string into Go struct field Quote.amount of type float64",
    "node": "TypeError: Cannot read properties of null (reading 'items')",
    "python": "ValueError: could not convert string to float: ''",
    "php": 'PHP Warning:  Undefined array key "amount" in /var/www/html/lib/Quote.php on line 57',
    "rust": "error: invalid type: null, expected f64 at line 1 column 42",
    "dotnet": "System.InvalidOperationException: Nullable object must have a value.",
}


def _wrong_answer(caller: SimEntity, callee: str, rng: random.Random) -> tuple[str, str]:
    del callee, rng  # the line says what was wrong with the answer, not who gave it
    return "ERROR", _WRONG_ANSWER_LINES.get(caller.software, _WRONG_ANSWER_LINES["go"])


def deploy_regression(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    old, new = _version(rng)
    when = o - rng.randint(2, 18) * 60
    plan = FaultPlan("deploy_regression", start=when, victim_mode="errors", victim_strength=rng.uniform(0.6, 1.2))
    plan.changes.append(
        {
            "id": f"deploy-{rng.randint(1000, 9999)}",
            "kind": "deploy",
            "service": c.name,
            "time": when,
            "version": new,
            "author": rng.choice(("ci", "ci", "bob", "dana")),
            "summary": rng.choice(
                (
                    "refactor pricing rules loader",
                    "switch to new serializer",
                    "add caching layer for lookups",
                    "upgrade framework minor version",
                )
            ),
            "diff": rng.choice(
                (
                    "- rules = loadRules(cfg)\n+ rules = cache.get(key)",
                    "- serializer: jackson\n+ serializer: fastjson2",
                    "",
                )
            ),
        }
    )
    variant = rng.random()
    slow = variant < 0.3
    # A new version that answers, but wrongly (a field left null, a unit changed): it logs nothing and
    # counts no error of its own; its callers raise on what it returned (a fault injector's "wrong return").
    wrong = not slow and variant < 0.55
    if slow:
        plan.shapes["latency_p99_ms"] = step(o, rng.uniform(6, 12), rise_s=60)
        plan.shapes["cpu_usage"] = step(o, rng.uniform(1.8, 2.6), rise_s=60)
        plan.victim_mode = "latency"
        plan.logs += repeat(
            ctx,
            o,
            ctx.window_end,
            20,
            lambda r: (
                "WARN",
                f"slow query detected: SELECT * FROM items WHERE order_id = $1 executed {r.randint(40, 400)} times in one request (N+1) version={new}",
            ),
        )
    elif wrong:
        plan.wrong_answers = rng.uniform(0.3, 0.7)
        plan.caller_message = _wrong_answer
    else:
        plan.shapes["error_rate"] = add_step(o, rng.uniform(0.2, 0.5), rise_s=60)
        cls = rng.choice(("PriceRule", "Discount", "TaxRule", "Coupon"))
        tmpl = _REGRESSION_LINES.get(c.software, _REGRESSION_LINES["go"])
        plan.logs += repeat(
            ctx,
            o,
            ctx.window_end,
            6,
            lambda r: ("ERROR", tmpl.format(name=c.name, cls=cls, line=r.choice((88, 142, 217)), version=new)),
        )
    plan.logs.append(
        _once(
            ctx,
            when + rng.uniform(20, 60),
            "INFO",
            f"Started {c.name} {new} (previous {old}) in {rng.uniform(4, 20):.1f} seconds",
        )
    )
    plan.shapes["restarts_total"] = counter_steps([when + 30], 0.0)
    plan.alert = None if wrong else ("HighErrorRate" if not slow else "HighLatencyP99", "critical")
    plan.alert_at = o + rng.randint(60, 300)
    plan.alert_prob = 0.4
    bug = "an N+1 query" if slow else "wrong answers its callers raise on" if wrong else "a null dereference"
    plan.notes = f"{c.name} {new} deployed at {_ts(when)} introduced {bug}"
    return plan


def _config_change(
    ctx: FaultContext,
    plan: FaultPlan,
    change: dict[str, Any],
    summary: str,
    diff: str,
    mean_gap: float,
    message: Callable[[random.Random], str],
) -> None:
    """A config or flag change at the cause, and the ERROR line it makes the cause repeat from the onset."""
    plan.changes.append(
        {
            "id": change["id"],
            "kind": change["kind"],
            "service": ctx.cause.name,
            "time": change["time"],
            "version": "",
            "author": change["author"],
            "summary": summary,
            "diff": diff,
        }
    )
    plan.logs += repeat(ctx, ctx.onset, ctx.window_end, mean_gap, lambda r: ("ERROR", message(r)))


def config_error(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    when = o - rng.randint(1, 9) * 60
    plan = FaultPlan("config_error", start=when, victim_mode="errors", victim_strength=rng.uniform(0.7, 1.3))
    variant = rng.choice(("flag", "timeout", "credentials"))
    dep = next(
        (d for d in c.depends_on if ctx.topo.get(d).family in ("database", "cache", "queue")),
        c.depends_on[0] if c.depends_on else c.name,
    )
    cid = f"{'flag' if variant == 'flag' else 'config'}-{rng.randint(1000, 9999)}"
    if variant == "flag":
        flag = rng.choice(("new-pricing-engine", "async-checkout", "v2-search-ranking", "batch-writes"))
        _config_change(
            ctx,
            plan,
            {"id": cid, "kind": "feature_flag", "time": when, "author": rng.choice(("pm-tool", "carol"))},
            f"enable {flag} for 100% of traffic",
            f"- {flag}: 5%\n+ {flag}: 100%",
            7,
            lambda r: (
                f"request failed under flag {flag}=on: IllegalStateException: engine v2 has no rule set for region "
                f"'{r.choice(('eu-west', 'us-east', 'ap-south'))}' req_id={logtext.hexid(r)}"
            ),
        )
    elif variant == "timeout":
        _config_change(
            ctx,
            plan,
            {"id": cid, "kind": "config", "time": when, "author": rng.choice(("alice", "ops-bot"))},
            f"tune client timeouts for {dep}",
            f"- {dep}.timeout: 3s\n+ {dep}.timeout: 30ms",
            6,
            lambda r: (
                f"call to {dep} aborted: client timeout 30ms exceeded (configured {dep}.timeout=30ms) "
                f"req_id={logtext.hexid(r)}"
            ),
        )
    else:
        _config_change(
            ctx,
            plan,
            {"id": cid, "kind": "config", "time": when, "author": rng.choice(("vault-sync", "alice"))},
            f"rotate {dep} credentials",
            f"- secretRef: {dep}-creds-v3\n+ secretRef: {dep}-creds-v4",
            6,
            lambda r: (
                f'FATAL:  password authentication failed for user "app" (connecting to {dep}; '
                f"credentials from secret {dep}-creds-v4)"
            ),
        )
    plan.shapes["error_rate"] = add_step(o, rng.uniform(0.25, 0.7), rise_s=60)
    plan.alert = ("HighErrorRate", "critical")
    plan.alert_at = o + rng.randint(60, 300)
    plan.alert_prob = 0.45
    plan.notes = f"{variant} change {cid} on {c.name} at {_ts(when)}"
    return plan


def certificate_expiry(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    expiry = o - (o % 3600) if rng.random() < 0.5 else o
    plan = FaultPlan("certificate_expiry", start=expiry, victim_mode="errors", victim_strength=rng.uniform(0.9, 1.4))
    host = c.attributes.get("url", f"https://{c.name}:8443").split("//", 1)[-1]
    now = _ts(o + 31)
    not_after = _ts(expiry)

    def x509(caller: SimEntity, callee: str, r: random.Random) -> tuple[str, str]:
        sw = caller.software
        if sw == "java":
            return (
                "ERROR",
                f"javax.net.ssl.SSLHandshakeException: PKIX path validation failed: java.security.cert.CertPathValidatorException: validity check failed (connecting to {callee} https://{host})",
            )
        if sw == "node":
            return (
                "ERROR",
                f"Error: certificate has expired (code: CERT_HAS_EXPIRED) calling {callee} at https://{host}",
            )
        if sw in ("python", "spark", "php"):
            return (
                "ERROR",
                f"ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired (_ssl.c:1006) host='{callee}'",
            )
        if sw in ("nginx", "traefik"):
            return (
                "ERROR",
                f'upstream SSL certificate verify error: (10:certificate has expired) while SSL handshaking to upstream, upstream: "https://{callee}:443"',
            )
        return (
            "ERROR",
            f'Post "https://{host}/v1": x509: certificate has expired or is not yet valid: current time {now} is after {not_after} (calling {callee})',
        )

    plan.caller_message = x509
    if c.family != "external":
        plan.shapes["request_rate"] = step(expiry, rng.uniform(0.05, 0.2), rise_s=30)
        plan.logs += repeat(
            ctx,
            expiry,
            ctx.window_end,
            5,
            lambda r: (
                "INFO",
                f"http: TLS handshake error from {logtext.private_ip(r)}:{r.randint(30000, 60000)}: remote error: tls: bad certificate",
            ),
        )
        plan.logs.append(
            _once(
                ctx,
                ctx.window_start + rng.randint(60, 600),
                "WARN",
                f"cert-manager: Failed to renew certificate {c.name}-tls: ACME order failed: 429 urn:ietf:params:acme:error:rateLimited (expires {not_after})",
            )
        )
        plan.alert = ("ProbeSSLCertExpired", "critical")
    plan.alert_at = expiry + rng.randint(60, 300)
    plan.alert_prob = 0.35
    plan.notes = f"TLS certificate of {c.name} expired at {not_after}"
    return plan


def traffic_surge(ctx: FaultContext) -> FaultPlan:
    rng, c, o = ctx.rng, ctx.cause, ctx.onset
    factor = rng.uniform(3, 6)
    start = o - rng.randint(60, 240)
    end = None if rng.random() < 0.7 else ctx.window_end - rng.randint(180, 480)
    plan = FaultPlan(
        "traffic_surge", start=start, victim_mode="latency", victim_strength=rng.uniform(0.6, 1.0), propagation="down"
    )
    cpu = ctx.baseline("cpu_usage")
    plan.shapes["request_rate"] = step(start, factor, rise_s=o - start, end=end)
    plan.shapes["cpu_usage"] = (
        plateau(start, cpu.limit * rng.uniform(0.9, 1.0), rise_s=o - start)
        if end is None
        else compose(step(start, 3.0, rise_s=o - start, end=end))
    )
    plan.shapes["latency_p99_ms"] = step(o, rng.uniform(3, 8), rise_s=120, end=end)
    plan.shapes["error_rate"] = add_step(o, rng.uniform(0.02, 0.12), rise_s=120, end=end)
    campaign = rng.choice(
        (
            "newsletter campaign",
            "bot scraping /api/v1/search",
            "partner batch replay",
            "retry storm from mobile app v4.2",
        )
    )

    def line(r: random.Random) -> tuple[str, str]:
        if c.software == "java":
            return (
                "WARN",
                f"o.a.tomcat.util.threads.ThreadPoolExecutor: Thread pool exhausted: maxThreads=200, queue={r.randint(100, 2000)}",
            )
        if c.software in ("nginx", "traefik"):
            return (
                "WARN",
                f'limiting requests, excess: {r.uniform(5, 90):.3f} by zone "perip", client: {logtext.public_ip(r)}, request: "GET /api/v1/search HTTP/1.1"',
            )
        return (
            "WARN",
            f"rate limiter: rejecting request with 429, current {r.randint(900, 4000)} rps > limit {r.randint(300, 800)} rps",
        )

    plan.logs += repeat(ctx, o, end or ctx.window_end, 8, line)
    agent = {
        "newsletter campaign": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4) utm_source=newsletter",
        "bot scraping /api/v1/search": "python-requests/2.31.0",
        "partner batch replay": "partner-sync/1.4 (+https://partner.example.com)",
        "retry storm from mobile app v4.2": "ShopApp/4.2.0 (Android 14)",
    }[campaign]
    plan.logs += repeat(
        ctx,
        start,
        end or ctx.window_end,
        4,
        lambda r: (
            "INFO",
            f'{logtext.public_ip(r)} "GET /api/v1/{r.choice(("search", "products", "cart"))} HTTP/1.1" {r.choice((200, 200, 429, 503))} ua="{agent}"',
        ),
    )
    plan.alert = ("HighRequestRate", "warning")
    plan.alert_at = o + rng.randint(0, 300)
    plan.alert_prob = 0.35
    plan.also_acceptable = [(c.name, "cpu_saturation")]
    plan.notes = f"{c.name} traffic x{factor:.1f} from {_ts(start)} ({campaign})"
    return plan


FAULTS: dict[str, Callable[[FaultContext], FaultPlan]] = {
    "cpu_saturation": cpu_saturation,
    "memory_leak": memory_leak,
    "oom_kill": oom_kill,
    "crash_loop": crash_loop,
    "disk_full": disk_full,
    "network_latency": network_latency,
    "packet_loss": packet_loss,
    "dns_failure": dns_failure,
    "dependency_down": dependency_down,
    "connection_pool_exhaustion": connection_pool_exhaustion,
    "db_lock_contention": db_lock_contention,
    "deploy_regression": deploy_regression,
    "config_error": config_error,
    "certificate_expiry": certificate_expiry,
    "traffic_surge": traffic_surge,
}

# The signature a senior SRE would look for on the cause entity: (metric family that moves,
# pattern in the cause's own logs or, for entities without telemetry, in its callers' logs).
SIGNATURES: dict[str, tuple[tuple[str, ...], str]] = {
    "cpu_saturation": (
        ("cpu_usage",),
        r"soft lockup|blocked for more than|starvation|slow request|duration: \d{4}|load average",
    ),
    "memory_leak": (("memory_bytes",), r"GC|Mark-Compact|maxmemory|memory usage high"),
    "oom_kill": (("restarts_total",), r"OOMKilled|out of memory|signal 9"),
    "crash_loop": (("restarts_total",), r"Back-off restarting|panic|Exception|Error|malformed"),
    "disk_full": (("disk_used_ratio",), r"No space left|NOT_ENOUGH_SPACE|100% full|insufficient|reclaim"),
    "network_latency": (("network_rtt_ms",), r"NIC Link is Up (10|100) Mbps|slow response from"),
    "packet_loss": (("packet_loss_ratio",), r"NIC Link is Down"),
    "dns_failure": (("error_rate",), r"SERVFAIL|NXDOMAIN|plugin/errors|i/o timeout"),
    "dependency_down": ((), r"shut|SIGTERM|exit|refused|unavailable|503"),
    "connection_pool_exhaustion": (
        ("db_connections_in_use",),
        r"Connection is not available|pool|Timeout acquiring|QueuePool|r2d2",
    ),
    "db_lock_contention": (("lock_waits",), r"ShareLock|deadlock|Lock wait|lock timeout|DEADLOCK"),
    "deploy_regression": (("error_rate", "latency_p99_ms"), r"version=|Started "),
    "config_error": (("error_rate",), r"flag|timeout|password authentication"),
    "certificate_expiry": ((), r"x509|certificate|CERT_HAS_EXPIRED|PKIX|tls"),
    "traffic_surge": (("request_rate",), r"limiting requests|Thread pool exhausted|rate limiter"),
}
