"""Latency and outcome of each tool call (a PromQL query, a log search, a k8s read).

Tool calls happen inside the engine of whichever process runs the
investigation, and the engine does not store them, so these are in-process
metrics: `tool_call(tool)` times the call, counts its status and opens a
span. The API process exposes them on `/metrics`; a `rootward worker`
process keeps its own (see docs/deploy.md).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from prometheus_client import Counter, Histogram
from prometheus_client.core import Metric
from prometheus_client.registry import Collector

from rootward.observability.tracing import span

TOOL_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


class ToolCallMetrics(Collector):
    def __init__(self) -> None:
        self.seconds = Histogram(
            "rootward_tool_call_seconds",
            "Tool call latency by tool and status (ok|no_data|error|unavailable).",
            ["tool", "status"],
            buckets=TOOL_BUCKETS,
            registry=None,
        )
        self.errors = Counter(
            "rootward_tool_call_errors",
            "Tool calls that raised or answered error/unavailable.",
            ["tool"],
            registry=None,
        )

    def collect(self) -> Iterator[Metric]:
        yield from self.seconds.collect()
        yield from self.errors.collect()

    def observe(self, tool: str, status: str, seconds: float) -> None:
        self.seconds.labels(tool, status).observe(seconds)
        if status in ("error", "unavailable"):
            self.errors.labels(tool).inc()


TOOL_METRICS = ToolCallMetrics()


@dataclass
class ToolCallOutcome:
    """Set `status` to the ToolResult's status before the block ends (default ok)."""

    status: str = "ok"


@contextmanager
def tool_call(tool: str, **attrs: str | int | float | bool | None) -> Iterator[ToolCallOutcome]:
    """Time one tool call: `with tool_call("prometheus.query", query=q) as out: ...; out.status = r.status`."""
    outcome = ToolCallOutcome()
    started = time.perf_counter()
    with span(f"tool {tool}", tool=tool, **attrs) as current:
        try:
            yield outcome
        except BaseException:
            outcome.status = "error"
            raise
        finally:
            current.set_attribute("rootward.status", outcome.status)
            TOOL_METRICS.observe(tool, outcome.status, time.perf_counter() - started)
