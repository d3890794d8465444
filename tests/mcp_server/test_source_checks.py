"""`sources_check` says what `rootward sources check` says: the same function, the same lines (via the SDK client)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import anyio
import yaml
from mcp import Client
from typer.testing import CliRunner

from rootward.cli import app
from rootward.mcp.server import build_server
from rootward.mcp.source_checks import sources_report
from rootward.sources.loki import LokiSettings
from rootward.sources.prometheus import PrometheusSettings
from tests.mcp_server.conftest import World
from tests.mcp_server.test_tools import _deps
from tests.sources.local_http import Reply, Request, free_port, serve


def loki(request: Request) -> Reply:
    if request.path == "/loki/api/v1/label/service/values":
        return Reply(body={"status": "success", "data": ["api", "cart"]})
    return Reply(404, {"status": "error"})


def _without_timing(lines: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in line.items() if k != "ms"} for line in lines]


def test_the_mcp_tool_and_the_cli_give_the_same_verdicts(world: World, tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    with serve(loki) as (url, _seen):
        sections = {
            "prometheus": PrometheusSettings(base_url=dead, timeout_s=2),
            "loki": LokiSettings(base_url=url, timeout_s=2),
        }
        deps = replace(_deps(world, world.responder), check_sources=lambda services: sources_report(sections, services))

        async def ask() -> dict[str, object]:
            async with Client(build_server(deps)) as c:
                reply = await c.call_tool("sources_check", {"services": ["cart", "search"]})
                assert not reply.is_error, reply.content
                return reply.structured_content  # type: ignore[return-value]

        report = anyio.run(ask)
        config = tmp_path / "sources.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "data_dir": str(tmp_path),
                    "database": {"url": world.db_url},
                    "prometheus": {"base_url": dead, "timeout_s": 2},
                    "loki": {"base_url": url, "timeout_s": 2},
                }
            )
        )
        cli = CliRunner().invoke(app, ["sources", "check", "--json", "-s", "cart", "-s", "search", "-c", str(config)])
    assert cli.exit_code == 1  # the dead Prometheus fails, as report["failed"] says
    printed = [json.loads(line) for line in cli.stdout.splitlines() if line.strip()]
    assert _without_timing(report["lines"]) == _without_timing(printed)  # type: ignore[arg-type]
    assert report["failed"] is True
    by = {(line["source"], line["subject"]): line for line in printed}
    assert by[("loki", "cart")]["verdict"] == "ok" and by[("loki", "search")]["verdict"] == "warn"
    assert by[("prometheus", "reachable")]["verdict"] == "fail"
    assert "kubernetes" in report["unconfigured"]  # type: ignore[operator]
