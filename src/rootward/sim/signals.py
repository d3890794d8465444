"""Metric baselines and the shapes faults bend them into.

A shape is a function `(t, value) -> value` over epoch seconds: saturation
plateaus, ramps (leaks, filling disks), steps, flaps and sawtooths. Shapes are
pure; noise is added by the renderer from the bundle's own `random.Random`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

Shape = Callable[[int, float], float]

# Metrics that are ratios (clamped to [0, 1]) and counters (integers, never noisy).
RATIO_METRICS = frozenset({"error_rate", "disk_used_ratio", "packet_loss_ratio"})
COUNTER_METRICS = frozenset({"restarts_total"})
INTEGER_METRICS = frozenset({"db_connections_in_use", "db_connections_max", "lock_waits", "queue_depth"})


@dataclass(frozen=True)
class Baseline:
    level: float
    noise: float  # relative standard deviation
    limit: float = 0.0  # capacity where it has one (cpu cores, pool size, memory limit)


def family_metrics(family: str, has_pool: bool) -> tuple[str, ...]:
    """Metrics an entity of this telemetry family exports."""
    base: dict[str, tuple[str, ...]] = {
        "service": ("latency_p99_ms", "error_rate", "request_rate", "cpu_usage", "memory_bytes", "restarts_total"),
        "database": (
            "latency_p99_ms",
            "cpu_usage",
            "memory_bytes",
            "db_connections_in_use",
            "db_connections_max",
            "disk_used_ratio",
            "lock_waits",
        ),
        "cache": ("latency_p99_ms", "request_rate", "cpu_usage", "memory_bytes", "restarts_total"),
        "queue": ("latency_p99_ms", "queue_depth", "cpu_usage", "memory_bytes", "disk_used_ratio"),
        "host": ("cpu_usage", "memory_bytes", "disk_used_ratio", "packet_loss_ratio", "network_rtt_ms"),
        "storage": ("latency_p99_ms", "disk_used_ratio", "cpu_usage"),
        "network": ("packet_loss_ratio", "network_rtt_ms", "cpu_usage"),
        "dns": ("request_rate", "error_rate", "latency_p99_ms", "cpu_usage"),
        "external": (),
    }
    metrics = base.get(family, base["service"])
    if family == "service" and has_pool:
        metrics = metrics + ("db_connections_in_use", "db_connections_max")
    return metrics


def draw_baseline(family: str, metric: str, rng: random.Random) -> Baseline:
    """A plausible healthy level for one series."""
    u = rng.uniform
    gib = 1024**3
    if metric == "latency_p99_ms":
        level = {"database": u(3, 25), "cache": u(0.4, 2.5), "dns": u(1, 8), "storage": u(2, 12), "queue": u(3, 15)}
        return Baseline(level.get(family, u(40, 260)), 0.08)
    if metric == "error_rate":
        return Baseline(u(0.0005, 0.006), 0.3)
    if metric == "request_rate":
        return Baseline(u(15, 450) if family != "dns" else u(200, 1500), 0.07)
    if metric == "cpu_usage":
        if family == "host":
            cores = rng.choice((8.0, 16.0))
            return Baseline(cores * u(0.12, 0.35), 0.08, limit=cores)
        limit = rng.choice((1.0, 2.0, 4.0))
        return Baseline(limit * u(0.1, 0.35), 0.1, limit=limit)
    if metric == "memory_bytes":
        if family == "host":
            total = rng.choice((16.0, 32.0, 64.0)) * gib
            return Baseline(total * u(0.3, 0.55), 0.02, limit=total)
        limit = rng.choice((0.5, 1.0, 2.0, 4.0)) * gib
        return Baseline(limit * u(0.3, 0.5), 0.02, limit=limit)
    if metric == "restarts_total":
        return Baseline(float(rng.choice((0, 0, 0, 1, 2))), 0.0)
    if metric == "db_connections_max":
        size = float(rng.choice((20, 30, 40, 50))) if family == "service" else float(rng.choice((100, 200, 300)))
        return Baseline(size, 0.0, limit=size)
    if metric == "db_connections_in_use":
        return Baseline(u(2, 7) if family == "service" else u(15, 60), 0.15)
    if metric == "disk_used_ratio":
        return Baseline(u(0.3, 0.68), 0.002)
    if metric == "lock_waits":
        return Baseline(u(0.0, 1.2), 0.6)
    if metric == "queue_depth":
        return Baseline(u(20, 300), 0.2)
    if metric == "packet_loss_ratio":
        return Baseline(u(0.0, 0.0006), 0.5)
    if metric == "network_rtt_ms":
        return Baseline(u(0.2, 1.2), 0.1)
    return Baseline(1.0, 0.05)


def finish(metric: str, value: float, limit: float) -> float:
    """Clamp a value to what the metric can physically be."""
    if metric in RATIO_METRICS:
        value = min(1.0, max(0.0, value))
    value = max(0.0, value)
    if metric == "cpu_usage" and limit:
        value = min(value, limit * 1.02)
    if metric == "db_connections_in_use" and limit:
        value = min(value, limit)
    if metric in INTEGER_METRICS or metric in COUNTER_METRICS:
        value = float(round(value))
    return value


def fmt(value: float) -> str:
    """Fixed float formatting so the same seed writes the same bytes on every platform."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    if abs(value) >= 1000:
        return f"{value:.1f}"
    return f"{value:.6f}".rstrip("0").rstrip(".")


# --- shapes --------------------------------------------------------------------


def _progress(t: int, start: int, duration: int) -> float:
    if t < start:
        return 0.0
    if duration <= 0:
        return 1.0
    return min(1.0, (t - start) / duration)


def step(start: int, factor: float, rise_s: int = 60, end: int | None = None) -> Shape:
    """Multiply by `factor` from `start` (reached after `rise_s`), until `end` if given (recovery)."""

    def shape(t: int, v: float) -> float:
        if end is not None and t >= end:
            return v
        return v * (1.0 + (factor - 1.0) * _progress(t, start, rise_s))

    return shape


def add_step(start: int, amount: float, rise_s: int = 60, end: int | None = None) -> Shape:
    """Add `amount` from `start`: error rates and lock waits grow by addition, not ratio."""

    def shape(t: int, v: float) -> float:
        if end is not None and t >= end:
            return v
        return v + amount * _progress(t, start, rise_s)

    return shape


def ramp_to(start: int, reach: int, target: float, hold_noise: float = 0.0) -> Shape:
    """Grow linearly from the baseline at `start` to `target` at `reach`, then plateau there."""

    def shape(t: int, v: float) -> float:
        p = _progress(t, start, reach - start)
        if p >= 1.0:
            return target * (1.0 - hold_noise * (0.5 + 0.5 * math.sin(t / 47.0)))
        return v + (target - v) * p

    return shape


def plateau(start: int, level: float, rise_s: int = 120) -> Shape:
    """Saturate at `level` (a capacity) after a short climb: CPU limits, pool sizes."""

    def shape(t: int, v: float) -> float:
        p = _progress(t, start, rise_s)
        return v + (level - v) * p

    return shape


def flap(start: int, period_s: int, duty: float, level: float, seed: int) -> Shape:
    """Intermittent bursts (a flapping link): on for `duty` of each period, pseudo-randomly jittered."""

    def shape(t: int, v: float) -> float:
        if t < start:
            return v
        k = (t - start) // period_s
        phase = ((t - start) % period_s) / period_s
        jitter = ((k * 7919 + seed) % 100) / 100.0
        on = phase < duty * (0.6 + 0.8 * jitter)
        return v + level * (0.5 + jitter) if on else v

    return shape


def sawtooth(start: int, period_s: int, low: float, high: float) -> Shape:
    """Climb from `low` to `high` every `period_s`, then drop: a process OOM-killed and restarted."""

    def shape(t: int, v: float) -> float:
        if t < start:
            return v
        phase = ((t - start) % period_s) / period_s
        return low + (high - low) * phase

    return shape


def counter_steps(times: list[int], base: float) -> Shape:
    """A counter that increments at each of `times` (restarts)."""
    ordered = sorted(times)

    def shape(t: int, v: float) -> float:
        return base + sum(1 for x in ordered if x <= t)

    return shape


def compose(*shapes: Shape) -> Shape:
    def shape(t: int, v: float) -> float:
        for s in shapes:
            v = s(t, v)
        return v

    return shape
