from __future__ import annotations

import httpx

from rootward.observability.exposition import serve_process_metrics
from rootward.observability.tools import tool_call


def test_a_worker_serves_its_tool_call_and_process_metrics() -> None:
    with tool_call("k8s.events") as out:
        out.status = "no_data"
    port = serve_process_metrics("127.0.0.1", 0)
    body = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    assert 'rootward_tool_call_seconds_count{status="no_data",tool="k8s.events"}' in body
    assert "process_resident_memory_bytes" in body
