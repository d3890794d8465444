"""`GET /metrics`: Prometheus exposition of rootward's state and of this process.

The registry holds the database collector (the whole fleet's state, see
`observability/collector.py`), the in-process tool-call histograms and
the standard process metrics; it is
made on first scrape and kept on `app.state`. Like `/healthz`, it needs no
token: bind the API to a private address or put it behind a proxy that
restricts `/metrics`.
"""

from __future__ import annotations

import threading

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.process_collector import ProcessCollector

from rootward.observability.collector import DatabaseCollector
from rootward.observability.judge_metrics import JudgeCollector
from rootward.observability.tools import TOOL_METRICS

router = APIRouter()
_lock = threading.Lock()


def registry_of(request: Request) -> CollectorRegistry:
    state = request.app.state
    with _lock:
        registry: CollectorRegistry | None = getattr(state, "metrics_registry", None)
        if registry is None:
            registry = CollectorRegistry(auto_describe=False)
            registry.register(DatabaseCollector(state.sessions))
            registry.register(JudgeCollector(state.sessions))
            registry.register(TOOL_METRICS)
            ProcessCollector(registry=registry)
            state.metrics_registry = registry
    return registry


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    return Response(generate_latest(registry_of(request)), media_type=CONTENT_TYPE_LATEST)
