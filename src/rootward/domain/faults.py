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
