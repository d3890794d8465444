"""The closed fault-type vocabulary of the bundle spec.

An investigation names root causes in exactly these words so that the
evaluation harness can compare them with ground truth mechanically.
"""

from __future__ import annotations

from typing import Literal, get_args

FaultType = Literal[
    "cpu_saturation",
    "memory_leak",
    "oom_kill",
    "crash_loop",
    "disk_full",
    "network_latency",
    "packet_loss",
    "dns_failure",
    "dependency_down",
    "connection_pool_exhaustion",
    "db_lock_contention",
    "deploy_regression",
    "config_error",
    "certificate_expiry",
    "traffic_surge",
]

FAULT_TYPES: tuple[str, ...] = get_args(FaultType)


def is_fault_type(value: str) -> bool:
    return value in FAULT_TYPES


# The fault types in an on-call engineer's words ("a full disk at node-3").
FAULT_WORDS: dict[str, str] = {
    "cpu_saturation": "CPU saturation",
    "memory_leak": "a memory leak",
    "oom_kill": "an out-of-memory kill",
    "crash_loop": "a crash loop",
    "disk_full": "a full disk",
    "network_latency": "added network latency",
    "packet_loss": "packet loss",
    "dns_failure": "DNS resolution failures",
    "dependency_down": "the dependency being down or unreachable",
    "connection_pool_exhaustion": "connection pool exhaustion",
    "db_lock_contention": "database lock contention",
    "deploy_regression": "a code regression",  # a deploy, or code newly taking a failing path: the evidence says which
    "config_error": "a bad configuration change",
    "certificate_expiry": "an expired or invalid certificate",
    "traffic_surge": "a traffic surge beyond capacity",
}

# Faults that name what changed rather than how the system broke: a config change or a deploy
# triggers a fault whose mechanism is another fault type at the same entity (a smaller pool, say).
TRIGGER_FAULTS = frozenset({"config_error", "deploy_regression"})

# What a change at an entity can break inside that entity: the mechanisms a trigger acts through.
# Not a dependency down, the network or load from outside: those are causes elsewhere, and "a code
# regression at frontend, through the dependency being down" would name two causes as one.
TRIGGERED_MECHANISMS = frozenset(
    {
        "cpu_saturation",
        "memory_leak",
        "oom_kill",
        "crash_loop",
        "disk_full",
        "dns_failure",
        "connection_pool_exhaustion",
        "db_lock_contention",
        "certificate_expiry",
    }
)


def fault_words(fault_type: str) -> str:
    return FAULT_WORDS.get(fault_type, fault_type.replace("_", " "))


# The fault a moved series (or an alert) of a metric family reads as when nothing more specific does.
FAMILY_FAULTS: dict[str, str] = {
    "cpu": "cpu_saturation",
    "memory": "memory_leak",
    "disk": "disk_full",
    "restarts": "crash_loop",
    "packet_loss": "packet_loss",
    "connections": "connection_pool_exhaustion",
    "locks": "db_lock_contention",
    "network": "network_latency",
    "latency": "network_latency",
    "errors": "deploy_regression",
    "traffic": "traffic_surge",
}
