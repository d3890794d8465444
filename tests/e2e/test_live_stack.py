"""A live investigation on a real stack, every part a real process speaking its real protocol.

Two services instrumented with prometheus_client (`orders` calls `payments`), a
real `prometheus-node-exporter`, a real Prometheus scraping all three and
evaluating an alert rule, a real Alertmanager posting to `rootward serve`
(bearer token), and a Loki address nothing listens on. After a healthy
baseline, `payments` turns slow; the rule fires on `orders`; the investigation
must name payments and a latency fault from live data, cite what resolves,
carry the PromQL and a working Prometheus link with each metric cite, and
name the dead Loki as a gap. `rootward sources check` against the same stack
shows the templates that matched and the Loki failure.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from rootward.bundle.cites import BundleCiteResolver
from rootward.bundle.load import load_bundle
from rootward.store.db import make_engine, make_session_factory
from rootward.store.investigations import InvestigationRow
from tests.integration.alertmanager_server import alertmanager_binary
from tests.integration.processes import wait_until_ready
from tests.sources.local_http import free_port

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.integration,
    pytest.mark.xdist_group("prometheus"),
    pytest.mark.skipif(
        not (shutil.which("prometheus") and shutil.which("prometheus-node-exporter") and alertmanager_binary()),
        reason="needs the Debian packages prometheus, prometheus-node-exporter and prometheus-alertmanager",
    ),
]

ROOTWARD = str(Path(sys.executable).parent / "rootward")
TOKEN = "live-e2e-token"
BASELINE_S = 40  # healthy traffic before the fault: the anomaly baseline
RULES = {
    "groups": [
        {
            "name": "shop",
            "rules": [
                {
                    "alert": "HighLatency",
                    "expr": "histogram_quantile(0.99, sum by (job, le) "
                    '(rate(http_request_duration_seconds_bucket{job="orders"}[10s]))) > 0.2',
                    "for": "12s",
                    "labels": {"severity": "critical"},
                    "annotations": {"summary": "orders p99 latency above 200 ms"},
                }
            ],
        }
    ]
}


@dataclass
class Stack:
    root: Path
    prometheus: str
    rootward: str
    orders: str
    payments: str
    config: Path
    loki_port: int


@contextmanager
def _process(name: str, args: list[str], root: Path, ready: str | None, timeout_s: float = 30) -> Iterator[None]:
    log = root / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, cwd=root)
    try:
        if ready is not None:
            wait_until_ready(proc, ready, log, name, timeout_s)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _configs(root: Path, ports: dict[str, int]) -> Path:
    (root / "rules.yml").write_text(yaml.safe_dump(RULES))
    targets = {name: f"127.0.0.1:{ports[name]}" for name in ("orders", "payments", "node")}
    (root / "prometheus.yml").write_text(
        yaml.safe_dump(
            {
                "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                "rule_files": [str(root / "rules.yml")],
                "alerting": {"alertmanagers": [{"static_configs": [{"targets": [f"127.0.0.1:{ports['am']}"]}]}]},
                "scrape_configs": [
                    {"job_name": job, "static_configs": [{"targets": [target]}]} for job, target in targets.items()
                ],
            }
        )
    )
    webhook = f"http://127.0.0.1:{ports['rootward']}/api/v1/alerts/alertmanager"
    (root / "am.yml").write_text(
        yaml.safe_dump(
            {
                "route": {"receiver": "rootward", "group_by": ["alertname", "job"], "group_wait": "1s",
                          "group_interval": "5s", "repeat_interval": "1h"},
                "receivers": [
                    {"name": "rootward", "webhook_configs": [
                        {"url": webhook, "send_resolved": True,
                         "http_config": {"authorization": {"type": "Bearer", "credentials": TOKEN}}}
                    ]}
                ],
            }
        )
    )  # fmt: skip
    (root / "topology.yaml").write_text("entities:\n  orders: {kind: service, depends_on: [payments]}\n")
    config = root / "rootward.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "data_dir": str(root / "rw"),
                "intake": {"auth": "token", "token": TOKEN},
                "runtime": {"workers": 1, "poll_s": 0.2},
                "server": {"log_level": "warning"},
                "prometheus": {
                    "base_url": f"http://127.0.0.1:{ports['prometheus']}",
                    "step": 2,
                    "rate_window": "10s",
                    "timeout_s": 10,
                },
                "loki": {"base_url": f"http://127.0.0.1:{ports['loki']}", "timeout_s": 2},
                "topology": {"file": str(root / "topology.yaml")},
            }
        )
    )
    return config


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    ports = {name: free_port() for name in ("orders", "payments", "node", "prometheus", "am", "rootward", "loki")}
    config = _configs(tmp_path, ports)
    shop = [sys.executable, "-m", "tests.e2e.live_shop"]
    repo = Path(__file__).resolve().parents[2]
    url = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    with ExitStack() as stack:
        enter = stack.enter_context
        enter(_process("node", ["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:{ports['node']}"],
                       tmp_path, url["node"] + "/metrics"))  # fmt: skip
        enter(_shop(shop + ["--port", str(ports["payments"])], repo, tmp_path, "payments", url["payments"]))
        enter(_shop(shop + ["--port", str(ports["orders"]), "--downstream", url["payments"]], repo, tmp_path,
                    "orders", url["orders"]))  # fmt: skip
        enter(_process("rootward", [ROOTWARD, "serve", "--config", str(config), "--port", str(ports["rootward"])],
                       tmp_path, url["rootward"] + "/healthz", timeout_s=60))  # fmt: skip
        enter(_process("alertmanager", [str(alertmanager_binary()), f"--config.file={tmp_path / 'am.yml'}",
                                        f"--storage.path={tmp_path / 'am'}",
                                        f"--web.listen-address=127.0.0.1:{ports['am']}", "--cluster.listen-address="],
                       tmp_path, url["am"] + "/-/ready"))  # fmt: skip
        enter(_process("prometheus", ["prometheus", f"--config.file={tmp_path / 'prometheus.yml'}",
                                      f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                                      f"--web.listen-address=127.0.0.1:{ports['prometheus']}",
                                      f"--web.external-url={url['prometheus']}"],
                       tmp_path, url["prometheus"] + "/-/ready"))  # fmt: skip
        yield Stack(tmp_path, url["prometheus"], url["rootward"], url["orders"], url["payments"], config,
                    ports["loki"])  # fmt: skip


@contextmanager
def _shop(args: list[str], repo: Path, root: Path, name: str, url: str) -> Iterator[None]:
    log = root / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, cwd=repo)
    try:
        wait_until_ready(proc, url + "/metrics", log, name, 30)
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextmanager
def _traffic(url: str, threads: int = 3) -> Iterator[None]:
    """Steady requests to `url/work` from a few clients, like users would send."""
    stop = threading.Event()

    def loop() -> None:
        with httpx.Client(timeout=5) as client:
            while not stop.is_set():
                with suppress(httpx.HTTPError):
                    client.get(url + "/work")
                stop.wait(0.05)

    workers = [threading.Thread(target=loop, daemon=True) for _ in range(threads)]
    for w in workers:
        w.start()
    try:
        yield
    finally:
        stop.set()
        for w in workers:
            w.join(timeout=10)


def _wait(what: str, check: Callable[[], Any], timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")


def _investigation(stack: Stack) -> InvestigationRow | None:
    engine = make_engine(f"sqlite:///{stack.root / 'rw' / 'rootward.db'}")
    try:
        with make_session_factory(engine)() as session:
            return session.scalars(select(InvestigationRow)).first()
    except OperationalError:
        return None  # the server has not created its tables yet (a slow start under load)
    finally:
        engine.dispose()


def test_a_slow_downstream_is_found_from_live_data_with_links_and_the_dead_loki_named(stack: Stack) -> None:
    started = time.monotonic()
    with _traffic(stack.orders):
        _wait("a healthy baseline in Prometheus", lambda: _has_data(stack, 'up{job="payments"}'), 30)
        time.sleep(BASELINE_S)
        httpx.post(stack.payments + "/fault", json={"latency_ms": 300}, timeout=5).raise_for_status()
        row = _wait("the live investigation", lambda: _investigation(stack), 150)
    result = row.investigation
    top = result.top
    assert top is not None, result.gaps
    assert (top.entity, top.fault_type) == ("payments", "network_latency"), result.model_dump_json(indent=1)
    assert "no logs: Loki: query_range cannot connect (connection refused)" in result.gaps
    bundle = load_bundle(row.bundle_path)
    resolver = BundleCiteResolver(bundle)
    cites = [result.evidence[e].cite for e in top.evidence]
    assert cites and all(resolver.resolves(c) for c in cites), cites
    metric = [result.evidence[e] for e in top.evidence if result.evidence[e].kind == "metric"]
    assert metric, cites
    extra = metric[0].model_extra or {}
    assert extra["query"].startswith("PromQL ") and 'job="payments"' in extra["query"]
    assert httpx.get(extra["url"], timeout=5, follow_redirects=True).status_code == 200
    alert = next(i for i in result.evidence.values() if i.kind == "alert")
    assert (alert.model_extra or {}).get("url", "").startswith(stack.prometheus)  # the rule's generatorURL
    assert time.monotonic() - started < 120

    check = subprocess.run(
        [ROOTWARD, "sources", "check", "--config", str(stack.config), "-s", "payments", "-s", "127.0.0.1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 1, check.stdout + check.stderr  # a failed line: Loki
    lines = check.stdout.splitlines()
    assert any(line.startswith("FAIL  loki") and "cannot connect (connection refused)" in line for line in lines)
    payments = next(line for line in lines if line.startswith("OK    prometheus  payments"))
    assert 'templates matched for payments (job="payments")' in payments and "http_latency_p99" in payments
    host = next(line for line in lines if "prometheus  127.0.0.1" in line)
    assert "node_cpu" in host and "node_memory" in host


def _has_data(stack: Stack, promql: str) -> bool:
    try:
        body = httpx.get(stack.prometheus + "/api/v1/query", params={"query": promql}, timeout=2).json()
    except (httpx.HTTPError, ValueError):
        return False
    return bool(body.get("data", {}).get("result"))
