"""The risk report end to end: planted trends backfilled into a real Prometheus, ranked, posted to Slack.

Three days of series at one-minute resolution go through
`promtool tsdb create-blocks-from openmetrics` into a fresh TSDB, a real
`prometheus` serves them, and `rootward risk report --post` reads them with
the default queries, ranks them with a stored world model, keeps the report
and queues the digest; the outbox delivers it to a local server speaking
Slack's Web API.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from typer.testing import CliRunner

from rootward.cli import app
from rootward.domain.topology import Entity, Topology
from rootward.notify.dispatch import build_channels
from rootward.notify.outbox import OutboxDispatcher
from rootward.settings import load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.migrate import upgrade
from rootward.store.worldmodel import save_graph
from rootward.worldmodel.graph import WorldGraph
from tests.e2e.console_server import free_port
from tests.integration.processes import wait_until_ready

pytestmark = [
    pytest.mark.integration,
    pytest.mark.xdist_group("prometheus"),
    pytest.mark.skipif(
        shutil.which("prometheus") is None or shutil.which("promtool") is None,
        reason="Debian package prometheus (prometheus, promtool) not installed",
    ),
]
HOUR = 3600
STEP = 60
SPAN = 72 * HOUR
GIB = 2**30


def _line(name: str, labels: dict[str, str], value: float, t: int) -> str:
    body = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    return f"{name}{{{body}}} {value:.6f} {t}"


def _ratio_reaching(full_at: int, start: int, level0: float) -> Any:
    """A used ratio that rises linearly from `level0` at `start` to 1.0 at `full_at`."""
    return lambda t: level0 + (1.0 - level0) * (t - start) / (full_at - start)


def _openmetrics(now: int) -> str:
    """The planted estate: what should rank, in order, and what must not appear at all."""
    rng = random.Random(7)
    start, last = now - SPAN, now - 120
    times = range(start, last + 1, STEP)
    families: dict[str, list[str]] = {}
    disks = {  # instance -> used ratio at t
        "db-1:9100": _ratio_reaching(now + 6 * HOUR, start, 0.35),
        "web-1:9100": _ratio_reaching(now + 6 * 24 * HOUR, start, 0.35),
        "flat-1:9100": lambda t: 0.5 + rng.gauss(0, 0.002),
    }
    leak = _ratio_reaching(now + 12 * HOUR, start, 0.3)
    memory = {  # container -> working set / limit at t
        "api": leak,
        "cache": lambda t: 0.8 * (1 - math.exp(-(t - start) / (6 * HOUR))),  # warmed up: a plateau
        "quiet": lambda t: 0.4 + rng.gauss(0, 0.003),
    }
    requests = 0.0
    errors = {"checkout": 0.0, "catalog": 0.0}
    oks = {"checkout": 0.0, "catalog": 0.0}
    restarts = 0
    for t in times:
        for instance, used in disks.items():
            labels = {"instance": instance, "mountpoint": "/data", "fstype": "ext4", "device": "sda1"}
            families.setdefault("node_filesystem_size_bytes", []).append(
                _line("node_filesystem_size_bytes", labels, 100 * GIB, t)
            )
            families.setdefault("node_filesystem_avail_bytes", []).append(
                _line("node_filesystem_avail_bytes", labels, max(0.0, 1 - used(t)) * 100 * GIB, t)
            )
        for container, ratio in memory.items():
            labels = {"namespace": "shop", "pod": f"{container}-0", "container": container}
            families.setdefault("container_spec_memory_limit_bytes", []).append(
                _line("container_spec_memory_limit_bytes", labels, 2 * GIB, t)
            )
            families.setdefault("container_memory_working_set_bytes", []).append(
                _line("container_memory_working_set_bytes", labels, ratio(t) * 2 * GIB, t)
            )
        for service in ("checkout", "catalog"):
            share = 0.02 if service == "checkout" and t > now - 2 * HOUR else 0.0001
            errors[service] += 10 * STEP * share
            oks[service] += 10 * STEP * (1 - share)
            for status, total in (("500", errors[service]), ("200", oks[service])):
                families.setdefault("http_requests_total", []).append(
                    _line("http_requests_total", {"service": service, "status": status}, total, t)
                )
        requests += 1
        if t > now - 24 * HOUR and int(requests) % 240 == 0:
            restarts += 1
        for pod, count in (("worker-0", restarts), ("steady-0", 2)):
            labels = {"namespace": "shop", "pod": pod, "container": pod.split("-")[0]}
            families.setdefault("kube_pod_container_status_restarts_total", []).append(
                _line("kube_pod_container_status_restarts_total", labels, count, t)
            )
        for target, days in (("https://shop.example.com", 5), ("https://far.example.com", 200)):
            families.setdefault("probe_ssl_earliest_cert_expiry", []).append(
                _line("probe_ssl_earliest_cert_expiry", {"instance": target}, now + days * 86400, t)
            )
    out = []
    for name, lines in families.items():
        kind = "counter" if name.endswith("_total") else "gauge"
        out.append(f"# TYPE {name.removesuffix('_total') if kind == 'counter' else name} {kind}")
        out += lines
    return "\n".join(out) + "\n# EOF\n"


class SlackApi:
    """A local server speaking Slack's chat.postMessage; records what it was sent."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0))).decode()
                body = json.loads(raw) if raw.startswith("{") else {k: v[0] for k, v in parse_qs(raw).items()}
                api.posts.append({"path": self.path, "body": body})
                reply = json.dumps({"ok": True, "ts": f"{len(api.posts)}.0001", "channel": "C1"}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/api/"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def prometheus(tmp_path: Path) -> Iterator[str]:
    """A real Prometheus serving three backfilled days of the planted estate."""
    now = int(datetime.now(UTC).timestamp())
    source = tmp_path / "estate.om"
    source.write_text(_openmetrics(now), encoding="utf-8")
    tsdb = tmp_path / "tsdb"
    subprocess.run(
        ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(source), str(tsdb)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (tmp_path / "prometheus.yml").write_text("global:\n  scrape_interval: 1m\n")
    port = free_port()
    log = tmp_path / "prometheus.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={tmp_path / 'prometheus.yml'}",
                f"--storage.tsdb.path={tsdb}",
                "--storage.tsdb.retention.time=30d",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_ready(proc, f"{url}/-/ready", log, "prometheus", 60)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _stored_graph(url: str) -> None:
    """db-1 hosts the api and checkout; the api serves the web front: the disk's blast radius."""
    topology = Topology(
        entities={
            "db-1": Entity("db-1", "host"),
            "api": Entity("api", "service", runs_on=("db-1",)),
            "checkout": Entity("checkout", "service", depends_on=("api",), runs_on=("db-1",)),
            "web": Entity("web", "service", depends_on=("checkout",)),
            "web-1": Entity("web-1", "host"),
        }
    )
    graph = WorldGraph.from_topology(topology)
    engine = make_engine(url)
    with make_session_factory(engine)() as s, s.begin():
        save_graph(s, graph.entity_records(), graph.claim_records())
    engine.dispose()


def test_planted_trends_rank_first_flat_ones_never_appear_and_the_digest_reaches_slack(
    prometheus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slack = SlackApi()
    try:
        config = tmp_path / "rootward.yaml"
        config.write_text(
            f"notify:\n  slack:\n    bot_token: xoxb-test\n    channel: C1\n    api_url: {slack.url}\n",
            encoding="utf-8",
        )
        monkeypatch.setenv("ROOTWARD_DATA_DIR", str(tmp_path))
        settings = load_settings(config)
        upgrade(settings.database_url)
        _stored_graph(settings.database_url)
        result = CliRunner().invoke(
            app, ["risk", "report", "--config", str(config), "--prometheus", prometheus, "--post", "--json"]
        )
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert report["gaps"] == []
        ranked = [(e["entity"], e["kind"]) for e in report["entries"]]
        planted = {
            ("checkout", "error_budget_burn"),
            ("worker", "restarts"),
            ("db-1", "disk_fill"),
            ("api", "memory_growth"),
            ("https://shop.example.com", "certificate_expiry"),
            ("web-1", "disk_fill"),
        }
        assert set(ranked) == planted  # no flat disk, no plateaued cache, no far certificate, no steady pod
        assert ranked.index(("db-1", "disk_fill")) < ranked.index(("api", "memory_growth"))
        assert ranked.index(("api", "memory_growth")) < ranked.index(("web-1", "disk_fill"))
        disk = next(e for e in report["entries"] if e["entity"] == "db-1")
        assert abs(disk["crosses_in_s"] - 6 * HOUR) < HOUR
        assert {b["entity"] for b in disk["blast_radius"]} >= {"api", "checkout"}
        assert disk["series"][0].startswith("prometheus:1 - node_filesystem_avail_bytes")

        engine = make_engine(settings.database_url)
        sessions = make_session_factory(engine)
        delivered = OutboxDispatcher(sessions, build_channels(settings.notify)).deliver_once()
        engine.dispose()
        assert delivered == 1
        text = slack.posts[0]["body"]["text"]
        assert "Risk report" in text and "db-1" in text and "flat-1" not in text and "cache" not in text
    finally:
        slack.close()
