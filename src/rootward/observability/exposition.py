"""`/metrics` of a process without the API: what only that process knows.

The fleet's state is in the database and served by the API's `/metrics`;
a `rootward worker` adds what happens inside it, namely the latency and
errors of the tool calls its investigations make, plus the standard process
metrics (CPU, memory, open files).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.process_collector import ProcessCollector

from rootward.observability.tools import TOOL_METRICS


def process_registry() -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(TOOL_METRICS)
    ProcessCollector(registry=registry)
    return registry


def serve_process_metrics(host: str, port: int) -> int:
    """Serve this process's metrics on a daemon thread; returns the bound port (0 picks one)."""
    server, _thread = start_http_server(port, addr=host, registry=process_registry())
    return int(server.server_port)
