"""`sources_check`: each configured connector asked one cheap question through its real client."""

from __future__ import annotations

from rootward.mcp.source_checks import check_sources
from rootward.sources.loki import LokiSettings
from rootward.sources.prometheus import PrometheusSettings
from tests.sources.local_http import Reply, Request, free_port, serve

TARGETS = {"status": "success", "data": {"activeTargets": [{"labels": {"service": "api", "instance": "h1:9100"}}]}}


def test_a_live_source_is_ok_and_a_dead_one_is_unavailable_with_its_reason() -> None:
    def prometheus(request: Request) -> Reply:
        return Reply(body=TARGETS) if request.path == "/api/v1/targets" else Reply(404, {"status": "error"})

    dead = f"http://127.0.0.1:{free_port()}"
    with serve(prometheus) as (url, seen):
        report = check_sources(
            {
                "prometheus": PrometheusSettings(base_url=url, timeout_s=2),
                "loki": LokiSettings(base_url=dead, timeout_s=2),
            }
        )
    by_name = {c.name: c for c in report.sources}
    assert by_name["prometheus"].status == "ok" and by_name["prometheus"].probe == "topology graph"
    assert [r.path for r in seen] == ["/api/v1/targets"]
    assert by_name["loki"].status == "unavailable" and by_name["loki"].detail.startswith("Loki")
    assert "kubernetes" in report.unconfigured and "prometheus" not in report.unconfigured


def test_a_source_answering_garbage_is_unavailable_not_a_crash() -> None:
    with serve(lambda _request: Reply(body="<html>proxy error</html>", headers={"Content-Type": "text/html"})) as (
        url,
        _seen,
    ):
        report = check_sources({"prometheus": PrometheusSettings(base_url=url, timeout_s=2)})
    (check,) = report.sources
    assert check.status in ("unavailable", "error") and check.detail
