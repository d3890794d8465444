"""Live investigations on a real stack, every part a real process speaking its real protocol.

Four services instrumented with prometheus_client (`orders` calls `payments`;
`search` and `cart` stand alone), a real `prometheus-node-exporter`, a real
Prometheus scraping them all and evaluating the alert rules, a real
Alertmanager posting to `rootward serve` (bearer token), and a Loki address
nothing listens on. After one healthy baseline, `payments` turns slow (the
rule fires on `orders`, upstream) and `cart` starts failing right after a
deploy posted to `/api/v1/changes`; once both are investigated, `search`
burns CPU. Each investigation must name the right entity and fault
type from live data, cite what resolves, and name the dead Loki as a gap; the
latency one carries the PromQL and a working Prometheus link with its metric
cite. `rootward sources check` against the same stack shows the templates that
matched and the Loki failure.

The stack runs once for the module (a baseline costs 40 s of real time); each
test reads what it left.
"""

from __future__ import annotations

import os
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
    # Its host's CPU is evidence it reads (node_exporter on 127.0.0.1): beside a parallel suite on a
    # 2-core runner the host is really saturated, and naming it the cause would be right.
    pytest.mark.alone,
    pytest.mark.xdist_group("prometheus"),
    pytest.mark.skipif(
        not (shutil.which("prometheus") and shutil.which("prometheus-node-exporter") and alertmanager_binary()),
        reason="needs the Debian packages prometheus, prometheus-node-exporter and prometheus-alertmanager",
    ),
]

ROOTWARD = str(Path(sys.executable).parent / "rootward")
TOKEN = "live-e2e-token"
BASELINE_S = 40  # healthy traffic before the fault: the anomaly baseline
SERVICES = ("orders", "payments", "search", "cart")


def _rule(alert: str, expr: str, summary: str) -> dict[str, Any]:
    return {"alert": alert, "expr": expr, "for": "10s", "labels": {"severity": "critical"},
            "annotations": {"summary": summary}}  # fmt: skip


RULES = {
    "groups": [
        {
            "name": "shop",
            "rules": [
                _rule(
                    "HighLatency",
                    "histogram_quantile(0.99, sum by (job, le) "
                    '(rate(http_request_duration_seconds_bucket{job="orders"}[10s]))) > 0.2',
                    "orders p99 latency above 200 ms",
                ),
                _rule(
                    "HighCPU",
                    'rate(process_cpu_seconds_total{job="search"}[10s]) > 0.35',
                    "search uses more than a third of a core",
                ),  # fmt: skip
                _rule(
                    "HighErrorRate",
                    'sum by (job) (rate(http_requests_total{job="cart",status=~"5.."}[10s])) '
                    '/ sum by (job) (rate(http_requests_total{job="cart"}[10s])) > 0.2',
                    "cart fails more than 20% of requests",
                ),
            ],
        }
    ]
}
WAIT_S = 120  # for each round of investigations, on a loaded machine
DEPLOY = {"id": "cart-deploy-42", "kind": "deploy", "service": "cart", "version": "v42", "summary": "new checkout flow"}


@dataclass
class Stack:
    root: Path
    prometheus: str
    rootward: str
    service: dict[str, str]  # name -> base URL
    config: Path
    loki_port: int


@dataclass
class Outcome:
    """What the module's one run left: the stack, and the investigation of each alerting service."""

    stack: Stack
    rows: dict[str, InvestigationRow]
    seconds: float


@contextmanager
def _process(name: str, args: list[str], root: Path, ready: str | None, timeout_s: float = 30) -> Iterator[None]:
    log = root / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, cwd=root, env=_own_env())
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


def _own_env() -> dict[str, str]:
    """The environment without the caller's ROOTWARD_* settings: the stack's config file is the only truth.

    `make test` exports ROOTWARD_DATA_DIR (for `make run`), which outranks the file's `data_dir`: the server
    then wrote to the repository's var/ while the test read its own directory, and waited in vain."""
    return {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_")}


def _configs(root: Path, ports: dict[str, int]) -> Path:
    (root / "rules.yml").write_text(yaml.safe_dump(RULES))
    targets = {name: f"127.0.0.1:{ports[name]}" for name in (*SERVICES, "node")}
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
    (root / "topology.yaml").write_text(
        "entities:\n  orders: {kind: service, depends_on: [payments]}\n"
        "  search: {kind: service}\n  cart: {kind: service}\n"
    )
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


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    root = tmp_path_factory.mktemp("live")
    ports = {name: free_port() for name in (*SERVICES, "node", "prometheus", "am", "rootward", "loki")}
    config = _configs(root, ports)
    shop = [sys.executable, "-m", "tests.e2e.live_shop"]
    repo = Path(__file__).resolve().parents[2]
    url = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    downstream = {"orders": url["payments"]}
    with ExitStack() as stack:
        enter = stack.enter_context
        enter(_process("node", ["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:{ports['node']}"],
                       root, url["node"] + "/metrics"))  # fmt: skip
        for name in ("payments", "orders", "search", "cart"):
            args = ["--port", str(ports[name])] + (["--downstream", downstream[name]] if name in downstream else [])
            enter(_shop(shop + args, repo, root, name, url[name]))
        enter(_process("rootward", [ROOTWARD, "serve", "--config", str(config), "--port", str(ports["rootward"])],
                       root, url["rootward"] + "/healthz", timeout_s=60))  # fmt: skip
        enter(_process("alertmanager", [str(alertmanager_binary()), f"--config.file={root / 'am.yml'}",
                                        f"--storage.path={root / 'am'}",
                                        f"--web.listen-address=127.0.0.1:{ports['am']}", "--cluster.listen-address="],
                       root, url["am"] + "/-/ready"))  # fmt: skip
        enter(_process("prometheus", ["prometheus", f"--config.file={root / 'prometheus.yml'}",
                                      f"--storage.tsdb.path={root / 'tsdb'}",
                                      f"--web.listen-address=127.0.0.1:{ports['prometheus']}",
                                      f"--web.external-url={url['prometheus']}"],
                       root, url["prometheus"] + "/-/ready"))  # fmt: skip
        yield Stack(root, url["prometheus"], url["rootward"], {n: url[n] for n in SERVICES}, config, ports["loki"])


@pytest.fixture(scope="module")
def outcome(stack: Stack) -> Outcome:
    """One healthy baseline, then the faults, and the three investigations they cause.

    The CPU burn starts once the other two are investigated: all four services share this host, so a burn
    at the same moment would move the host's CPU exactly when the latency and the errors begin, and the
    host would then be a fair suspect for both (as it would be on any shared machine)."""
    started = time.monotonic()
    with _traffic([stack.service[name] for name in ("orders", "search", "cart")]):
        _wait(stack, "a healthy baseline in Prometheus", lambda: _has_data(stack, 'up{job="payments"}'), 30)
        time.sleep(BASELINE_S)
        _post(stack, "/api/v1/changes", DEPLOY)
        _fault(stack, "cart", {"error_ratio": 0.5})
        _fault(stack, "payments", {"latency_ms": 300})
        first = ("orders", "cart")
        _wait(stack, "the latency and error investigations", lambda: _investigations(stack, first), WAIT_S)
        _fault(stack, "search", {"cpu_burn": 0.8})
        rows = _wait(stack, "the CPU investigation", lambda: _investigations(stack, (*first, "search")), WAIT_S)
    return Outcome(stack, rows, time.monotonic() - started)


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
def _traffic(urls: list[str], threads: int = 2) -> Iterator[None]:
    """Steady requests to each `url/work` from a few clients, like users would send."""
    stop = threading.Event()

    def loop(url: str) -> None:
        with httpx.Client(timeout=5) as client:
            while not stop.is_set():
                with suppress(httpx.HTTPError):
                    client.get(url + "/work")
                stop.wait(0.05)

    workers = [threading.Thread(target=loop, args=(u,), daemon=True) for u in urls for _ in range(threads)]
    for w in workers:
        w.start()
    try:
        yield
    finally:
        stop.set()
        for w in workers:
            w.join(timeout=10)


def _post(stack: Stack, path: str, body: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    httpx.post(stack.rootward + path, json=body, headers=headers, timeout=10).raise_for_status()


def _fault(stack: Stack, service: str, fault: dict[str, Any]) -> None:
    httpx.post(stack.service[service] + "/fault", json=fault, timeout=5).raise_for_status()


def _wait(stack: Stack, what: str, check: Callable[[], Any], timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}\n{_diagnosis(stack)}")


def _diagnosis(stack: Stack) -> str:
    """What each part of the stack says, so a timeout in CI can be understood from its log alone."""
    parts = []
    with suppress(httpx.HTTPError, ValueError):
        alerts = httpx.get(stack.prometheus + "/api/v1/alerts", timeout=5).json()["data"]["alerts"]
        parts.append("Prometheus alerts: " + "; ".join(f"{a['labels']['alertname']} {a['state']}" for a in alerts))
    with suppress(OperationalError):
        engine = make_engine(f"sqlite:///{stack.root / 'rw' / 'rootward.db'}")
        with engine.connect() as conn:
            for table in ("alerts", "investigation_jobs"):
                rows = conn.exec_driver_sql(f"SELECT * FROM {table}").fetchall()  # noqa: S608 - our own names
                parts.append(f"{table}: " + "\n  ".join(str(tuple(r))[:400] for r in rows))
        engine.dispose()
    for name in ("rootward", "alertmanager"):
        parts.append(f"{name}.log (tail): " + (stack.root / f"{name}.log").read_text(errors="replace")[-3000:])
    return "\n".join(parts)


def _investigations(stack: Stack, services: tuple[str, ...]) -> dict[str, InvestigationRow] | None:
    """The investigation of each alerting service once those of `services` all exist."""
    engine = make_engine(f"sqlite:///{stack.root / 'rw' / 'rootward.db'}")
    try:
        with make_session_factory(engine)() as session:
            rows = {row.service: row for row in session.scalars(select(InvestigationRow))}
    except OperationalError:
        return None  # the server has not created its tables yet (a slow start under load)
    finally:
        engine.dispose()
    return rows if set(services) <= rows.keys() else None


def _top(outcome: Outcome, service: str) -> tuple[Any, Any]:
    result = outcome.rows[service].investigation
    assert result.top is not None, result.gaps
    return result, result.top


def _assert_cites_resolve(row: InvestigationRow) -> None:
    result = row.investigation
    assert result.top is not None
    resolver = BundleCiteResolver(load_bundle(row.bundle_path))
    cites = [result.evidence[e].cite for e in result.top.evidence]
    assert cites and all(resolver.resolves(c) for c in cites), cites
    assert "no logs: Loki: query_range cannot connect (connection refused)" in result.gaps


def test_a_slow_downstream_is_found_upstream_of_its_alert_with_promql_links(outcome: Outcome) -> None:
    result, top = _top(outcome, "orders")
    assert (top.entity, top.fault_type) == ("payments", "network_latency"), result.model_dump_json(indent=1)
    _assert_cites_resolve(outcome.rows["orders"])
    metric = [result.evidence[e] for e in top.evidence if result.evidence[e].kind == "metric"]
    assert metric, [result.evidence[e].cite for e in top.evidence]
    extra = metric[0].model_extra or {}
    assert extra["query"].startswith("PromQL ") and 'job="payments"' in extra["query"]
    assert httpx.get(extra["url"], timeout=5, follow_redirects=True).status_code == 200
    alert = next(i for i in result.evidence.values() if i.kind == "alert")
    assert (alert.model_extra or {}).get("url", "").startswith(outcome.stack.prometheus)  # the rule's generatorURL
    assert outcome.seconds < 120, "the baseline and the three live investigations should take under two minutes"


def test_a_cpu_burn_in_one_process_is_named_cpu_saturation(outcome: Outcome) -> None:
    result, top = _top(outcome, "search")
    assert (top.entity, top.fault_type) == ("search", "cpu_saturation"), result.model_dump_json(indent=1)
    _assert_cites_resolve(outcome.rows["search"])


def test_errors_right_after_a_posted_deploy_are_named_a_deploy_regression_citing_it(outcome: Outcome) -> None:
    result, top = _top(outcome, "cart")
    assert (top.entity, top.fault_type) == ("cart", "deploy_regression"), result.model_dump_json(indent=1)
    _assert_cites_resolve(outcome.rows["cart"])
    cited = [result.evidence[e] for e in top.evidence]
    assert any(item.kind == "change" and DEPLOY["id"] in item.cite for item in cited), [i.cite for i in cited]


def test_sources_check_shows_the_matching_templates_and_the_dead_loki(stack: Stack) -> None:
    check = subprocess.run(
        [ROOTWARD, "sources", "check", "--config", str(stack.config), "-s", "payments", "-s", "127.0.0.1"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_own_env(),
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
