"""A real Prometheus scrapes `/metrics` of a running `rootward serve`, and PromQL reads it back."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from rootward.domain.investigation import InvestigationResult, Timing
from rootward.llm.client import CallRecord
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import save_investigation
from rootward.store.llm_calls import record_llm_call
from rootward.store.migrate import upgrade
from tests.e2e.console_server import ConsoleServer, free_port, running

pytestmark = [
    pytest.mark.integration,
    pytest.mark.xdist_group("prometheus"),
    pytest.mark.skipif(shutil.which("prometheus") is None, reason="Debian package prometheus not installed"),
]


def _seed(data_dir: Path) -> None:
    url = f"sqlite:///{data_dir / 'rootward.db'}"
    upgrade(url)
    engine = make_engine(url)
    with make_session_factory(engine)() as s, s.begin():
        for n, total_ms in enumerate((800, 3000, 45000)):
            result = InvestigationResult(
                bundle="b", status="validated", timing=Timing(first_hypothesis_ms=300, total_ms=total_ms)
            )
            save_investigation(s, result, title=f"t{n}", service="checkout", tier="L2", created_at=datetime.now(UTC))
        record_llm_call(s, CallRecord("rca", "anthropic", "claude-x", "ok", 12000, 800, 0.25, 4000), "i", "checkout")
    engine.dispose()


@pytest.fixture
def scraped(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(Prometheus URL, rootward URL): a Prometheus that scrapes a live rootward every second."""
    _seed(tmp_path)
    with running(ConsoleServer(url="", data_dir=tmp_path), tmp_path / "serve.log") as api:
        target = api.url.removeprefix("http://")
        port = free_port()
        (tmp_path / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 1s\n"
            "scrape_configs:\n  - job_name: rootward\n    static_configs:\n"
            f"      - targets: ['{target}']\n"
        )
        with (tmp_path / "prometheus.log").open("w") as log:
            proc = subprocess.Popen(
                [
                    "prometheus",
                    f"--config.file={tmp_path / 'prometheus.yml'}",
                    f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                    f"--web.listen-address=127.0.0.1:{port}",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            yield f"http://127.0.0.1:{port}", api.url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _query(prom: str, promql: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{prom}/api/v1/query", params={"query": promql}, timeout=5)
    response.raise_for_status()
    return list(response.json()["data"]["result"])


def _wait_for(prom: str, promql: str, timeout_s: float = 60) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            result = _query(prom, promql)
            if result:
                return result
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"no data for {promql} after {timeout_s} s"
        time.sleep(0.5)


def test_prometheus_scrapes_rootward_metrics_and_answers_promql(scraped: tuple[str, str]) -> None:
    prom, api = scraped
    up = _wait_for(prom, 'up{job="rootward"} == 1')
    assert up[0]["value"][1] == "1"
    investigations = _wait_for(prom, 'sum(rootward_investigations_total{status="validated"})')
    assert investigations[0]["value"][1] == "3"
    cost = _query(prom, "sum by (provider, model, service) (rootward_llm_cost_usd_total)")
    assert cost[0]["metric"] == {"provider": "anthropic", "model": "claude-x", "service": "checkout"}
    assert float(cost[0]["value"][1]) == 0.25
    tokens = _query(prom, 'rootward_llm_tokens_total{direction="input"}')
    assert tokens[0]["value"][1] == "12000"
    # The duration histogram is usable as a histogram: 2 of 3 investigations took at most 5 s.
    under_5s = _query(prom, 'sum(rootward_investigation_duration_seconds_bucket{le="5.0"})')
    assert under_5s[0]["value"][1] == "2"
    median = _query(prom, "histogram_quantile(0.5, sum by (le) (rootward_investigation_duration_seconds_bucket))")
    assert 2.0 <= float(median[0]["value"][1]) <= 5.0
    assert _query(prom, "rootward_metrics_section_errors") == []

    if shutil.which("promtool") is not None:  # the exposition passes Prometheus's own lint
        exposition = httpx.get(f"{api}/metrics", timeout=10).text
        lint = subprocess.run(
            ["promtool", "check", "metrics"], input=exposition, capture_output=True, text=True, timeout=30
        )
        assert lint.returncode == 0, lint.stdout + lint.stderr
